package io.weir.connector.kafka;

import java.io.Serializable;
import java.nio.charset.StandardCharsets;
import java.util.Objects;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.serialization.Deserializer;

/**
 * Turns a Kafka record into the source's element: Flink's {@code KafkaRecordDeserializationSchema}.
 * Runs on the source's task thread; copied to every subtask by Java serialization. Throwing fails
 * the job with the record's topic, partition and offset, unless the source skips such records
 * ({@link DeserializationFailurePolicy#SKIP}).
 */
@FunctionalInterface
public interface KafkaRecordDeserializer<T> extends Serializable {

  T deserialize(ConsumerRecord<byte[], byte[]> record) throws Exception;

  /** The record's value as UTF-8 text. */
  static KafkaRecordDeserializer<String> valueAsString() {
    return record ->
        record.value() == null ? null : new String(record.value(), StandardCharsets.UTF_8);
  }

  /**
   * The record's value through a Kafka {@link Deserializer} class (with a public no-argument
   * constructor), created once per subtask.
   */
  static <T> KafkaRecordDeserializer<T> valueOnly(Class<? extends Deserializer<T>> type) {
    Objects.requireNonNull(type, "type");
    return new ValueOnly<>(type);
  }

  /** A Kafka value deserializer created on first use in each subtask. */
  final class ValueOnly<T> implements KafkaRecordDeserializer<T> {
    private static final long serialVersionUID = 1L;
    private final Class<? extends Deserializer<T>> type;
    private transient Deserializer<T> deserializer;

    ValueOnly(Class<? extends Deserializer<T>> type) {
      this.type = type;
    }

    @Override
    public T deserialize(ConsumerRecord<byte[], byte[]> record) throws Exception {
      if (deserializer == null) {
        deserializer = type.getDeclaredConstructor().newInstance();
      }
      return deserializer.deserialize(record.topic(), record.headers(), record.value());
    }
  }
}

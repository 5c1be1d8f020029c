package io.weir.connector.kafka;

import java.io.Serializable;
import java.nio.charset.StandardCharsets;
import java.util.Objects;
import org.apache.kafka.clients.producer.ProducerRecord;

/**
 * Turns a sink's element into a Kafka record (topic, optional partition, key, value, timestamp):
 * Flink's {@code KafkaRecordSerializationSchema}. Runs on the sink's task thread; copied to every
 * subtask by Java serialization.
 */
@FunctionalInterface
public interface KafkaRecordSerializer<IN> extends Serializable {

  /**
   * @param timestamp the element's timestamp in epoch milliseconds, or null if it has none
   */
  ProducerRecord<byte[], byte[]> serialize(IN element, Long timestamp) throws Exception;

  /** A serializable function from an element to bytes. */
  @FunctionalInterface
  interface ToBytes<IN> extends Serializable {
    byte[] apply(IN element) throws Exception;
  }

  /** Each element's {@code toString()} as the UTF-8 value of a record without key, into topic. */
  static <IN> KafkaRecordSerializer<IN> valueAsString(String topic) {
    Objects.requireNonNull(topic, "topic");
    return (element, timestamp) ->
        new ProducerRecord<>(
            topic, null, timestamp, null, element.toString().getBytes(StandardCharsets.UTF_8));
  }

  /** Records with the given key and value into topic (the key picks the partition). */
  static <IN> KafkaRecordSerializer<IN> of(String topic, ToBytes<IN> key, ToBytes<IN> value) {
    Objects.requireNonNull(topic, "topic");
    Objects.requireNonNull(value, "value");
    return (element, timestamp) ->
        new ProducerRecord<>(
            topic, null, timestamp, key == null ? null : key.apply(element), value.apply(element));
  }
}

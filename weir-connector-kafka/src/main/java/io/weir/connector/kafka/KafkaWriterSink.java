package io.weir.connector.kafka;

import io.weir.api.sink.Sink;
import io.weir.api.sink.SinkWriter;
import io.weir.api.sink.WriterInitContext;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * The {@link DeliveryGuarantee#NONE} and {@link DeliveryGuarantee#AT_LEAST_ONCE} Kafka sink: one
 * plain producer per subtask. At least once flushes the producer on every checkpoint (before the
 * barrier goes on) and fails the checkpoint if a send failed, so a completed checkpoint means every
 * record before it is acknowledged by the brokers.
 */
final class KafkaWriterSink<IN> implements Sink<IN> {
  private static final long serialVersionUID = 1L;

  private final KafkaClient client;
  private final KafkaRecordSerializer<IN> serializer;
  private final DeliveryGuarantee guarantee;

  KafkaWriterSink(
      KafkaClient client, KafkaRecordSerializer<IN> serializer, DeliveryGuarantee guarantee) {
    this.client = client;
    this.serializer = serializer;
    this.guarantee = guarantee;
  }

  /** The serializer turns each element into a producer record as it comes. */
  @Override
  public boolean keepsElements() {
    return false;
  }

  @Override
  public SinkWriter<IN> createWriter(WriterInitContext context) {
    return new Writer();
  }

  private final class Writer implements SinkWriter<IN> {
    private final KafkaProducer<byte[], byte[]> producer =
        new KafkaProducer<>(
            client.clientProperties(), new ByteArraySerializer(), new ByteArraySerializer());
    private final AtomicReference<Exception> asyncFailure = new AtomicReference<>();

    @Override
    public void write(IN element, Context context) throws Exception {
      checkFailure();
      ProducerRecord<byte[], byte[]> record = serializer.serialize(element, context.timestamp());
      producer.send(
          record,
          (metadata, e) -> {
            if (e != null) {
              asyncFailure.compareAndSet(
                  null,
                  new KafkaConnectorException(
                      "Writing a record to topic '"
                          + record.topic()
                          + "' at "
                          + client.bootstrapServers()
                          + " failed: "
                          + e,
                      e));
            }
          });
    }

    @Override
    public void flush(boolean endOfInput) throws Exception {
      if (endOfInput || guarantee == DeliveryGuarantee.AT_LEAST_ONCE) {
        producer.flush();
      }
      checkFailure();
    }

    private void checkFailure() throws Exception {
      Exception e = asyncFailure.get();
      if (e != null) {
        throw e;
      }
    }

    @Override
    public void close() {
      producer.close(Duration.ZERO);
    }
  }
}

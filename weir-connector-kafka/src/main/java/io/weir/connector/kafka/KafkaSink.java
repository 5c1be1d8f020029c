package io.weir.connector.kafka;

/**
 * Writes a stream into Kafka: Flink's {@code KafkaSink}.
 *
 * <pre>{@code
 * stream.sinkTo(
 *     KafkaSink.<String>builder()
 *         .setBootstrapServers("broker:9092")
 *         .setRecordSerializer(KafkaRecordSerializer.valueAsString("counts"))
 *         .setDeliveryGuarantee(DeliveryGuarantee.EXACTLY_ONCE)
 *         .setTransactionalIdPrefix("word-count")
 *         .build());
 * }</pre>
 *
 * <p>See {@link DeliveryGuarantee} for what each guarantee costs, and {@link KafkaSinkBuilder} for
 * the settings; {@code docs/connectors/kafka.md} explains the exactly-once protocol.
 */
public final class KafkaSink {
  private KafkaSink() {}

  public static <IN> KafkaSinkBuilder<IN> builder() {
    return new KafkaSinkBuilder<>();
  }
}

package io.weir.connector.kafka;

import io.weir.api.sink.Sink;
import java.time.Duration;
import java.util.Objects;
import java.util.Properties;
import org.apache.kafka.clients.producer.ProducerConfig;

/**
 * Builds a Kafka sink, with Flink's method names. Required: bootstrap servers and a record
 * serializer; for {@link DeliveryGuarantee#EXACTLY_ONCE} also a transactional-id prefix that no
 * other job uses on the same cluster.
 */
public final class KafkaSinkBuilder<IN> {

  /**
   * The {@code transaction.timeout.ms} an exactly-once sink uses unless set: 15 minutes, the
   * broker's default {@code transaction.max.timeout.ms} (Kafka's own default, 1 minute, is shorter
   * than Weir's default checkpoint timeout alone).
   */
  public static final Duration DEFAULT_TRANSACTION_TIMEOUT = Duration.ofMinutes(15);

  /** Transactional ids per subtask unless set; 3 are in use when checkpoints complete in time. */
  public static final int DEFAULT_TRANSACTIONAL_ID_POOL_SIZE = 5;

  private String bootstrapServers;
  private KafkaRecordSerializer<IN> serializer;
  private DeliveryGuarantee guarantee = DeliveryGuarantee.NONE;
  private String transactionalIdPrefix;
  private int poolSize = DEFAULT_TRANSACTIONAL_ID_POOL_SIZE;
  private ExpiredTransactionPolicy expiredPolicy = ExpiredTransactionPolicy.FAIL;
  private final Properties properties = new Properties();

  KafkaSinkBuilder() {}

  public KafkaSinkBuilder<IN> setBootstrapServers(String bootstrapServers) {
    this.bootstrapServers = Objects.requireNonNull(bootstrapServers, "bootstrapServers");
    return this;
  }

  public KafkaSinkBuilder<IN> setRecordSerializer(KafkaRecordSerializer<IN> serializer) {
    this.serializer = Objects.requireNonNull(serializer, "serializer");
    return this;
  }

  /** {@code NONE} by default, as in Flink. */
  public KafkaSinkBuilder<IN> setDeliveryGuarantee(DeliveryGuarantee guarantee) {
    this.guarantee = Objects.requireNonNull(guarantee, "guarantee");
    return this;
  }

  /**
   * The start of every transactional id ({@code <prefix>-<subtask>-<n>}); must differ between jobs
   * writing to the same cluster, and stay the same across restores of one job.
   */
  public KafkaSinkBuilder<IN> setTransactionalIdPrefix(String prefix) {
    this.transactionalIdPrefix = Objects.requireNonNull(prefix, "prefix");
    return this;
  }

  /**
   * How many transactional ids each subtask may use ({@value #DEFAULT_TRANSACTIONAL_ID_POOL_SIZE}
   * by default). A transaction's id is reused only after the checkpoint that committed it is itself
   * covered by a completed checkpoint; if checkpoints keep failing, the pool runs out and the job
   * fails (and restarts) with a message saying so.
   */
  public KafkaSinkBuilder<IN> setTransactionalIdPoolSize(int poolSize) {
    if (poolSize < 2) {
      throw new IllegalArgumentException(
          "The transactional id pool size must be at least 2, but was " + poolSize);
    }
    this.poolSize = poolSize;
    return this;
  }

  /** What to do when a completed checkpoint's transaction was aborted by the broker. */
  public KafkaSinkBuilder<IN> setExpiredTransactionPolicy(ExpiredTransactionPolicy policy) {
    this.expiredPolicy = Objects.requireNonNull(policy, "policy");
    return this;
  }

  /** A producer property, such as {@code transaction.timeout.ms}. */
  public KafkaSinkBuilder<IN> setProperty(String key, String value) {
    properties.setProperty(Objects.requireNonNull(key, "key"), Objects.requireNonNull(value, key));
    return this;
  }

  public KafkaSinkBuilder<IN> setKafkaProducerConfig(Properties props) {
    props.forEach((k, v) -> setProperty(k.toString(), v.toString()));
    return this;
  }

  public Sink<IN> build() {
    if (bootstrapServers == null) {
      throw new IllegalStateException(
          "KafkaSink needs the brokers: call setBootstrapServers(\"host:port\")");
    }
    if (serializer == null) {
      throw new IllegalStateException(
          "KafkaSink needs a record serializer: call setRecordSerializer(...), e.g."
              + " KafkaRecordSerializer.valueAsString(\"topic\")");
    }
    Properties producer = new Properties();
    producer.putAll(properties);
    producer.remove(ProducerConfig.TRANSACTIONAL_ID_CONFIG);
    if (guarantee == DeliveryGuarantee.EXACTLY_ONCE) {
      if (transactionalIdPrefix == null || transactionalIdPrefix.isBlank()) {
        throw new IllegalStateException(
            "An EXACTLY_ONCE KafkaSink needs a transactional id prefix that no other job on the"
                + " cluster uses: call setTransactionalIdPrefix(\"my-job\")");
      }
      producer.putIfAbsent(
          ProducerConfig.TRANSACTION_TIMEOUT_CONFIG,
          String.valueOf(DEFAULT_TRANSACTION_TIMEOUT.toMillis()));
      return new ExactlyOnceKafkaSink<>(
          new KafkaClient(bootstrapServers, producer),
          serializer,
          transactionalIdPrefix,
          poolSize,
          expiredPolicy);
    }
    if (guarantee == DeliveryGuarantee.AT_LEAST_ONCE) {
      producer.putIfAbsent(ProducerConfig.ACKS_CONFIG, "all");
    }
    return new KafkaWriterSink<>(
        new KafkaClient(bootstrapServers, producer), serializer, guarantee);
  }
}

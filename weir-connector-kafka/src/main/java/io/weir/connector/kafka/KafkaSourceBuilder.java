package io.weir.connector.kafka;

import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Properties;
import java.util.regex.Pattern;
import org.apache.kafka.clients.consumer.ConsumerConfig;

/**
 * Builds a {@link KafkaSource}, with Flink's method names and property keys. Required: bootstrap
 * servers, topics (or a pattern) and a deserializer.
 */
public final class KafkaSourceBuilder<T> {

  /** Flink's key: how often readers look for new partitions and topics; negative disables. */
  public static final String PARTITION_DISCOVERY_INTERVAL_MS = "partition.discovery.interval.ms";

  /** Flink's key: commit the checkpointed offsets to the consumer group (monitoring only). */
  public static final String COMMIT_OFFSETS_ON_CHECKPOINT = "commit.offsets.on.checkpoint";

  private static final long DEFAULT_DISCOVERY_INTERVAL_MS = Duration.ofMinutes(5).toMillis();

  private String bootstrapServers;
  private KafkaSubscription subscription;
  private OffsetsInitializer startingOffsets = OffsetsInitializer.earliest();
  private OffsetsInitializer stoppingOffsets;
  private KafkaRecordDeserializer<T> deserializer;
  private DeserializationFailurePolicy failurePolicy = DeserializationFailurePolicy.FAIL;
  private final Properties properties = new Properties();

  KafkaSourceBuilder() {}

  public KafkaSourceBuilder<T> setBootstrapServers(String bootstrapServers) {
    this.bootstrapServers = Objects.requireNonNull(bootstrapServers, "bootstrapServers");
    return this;
  }

  public KafkaSourceBuilder<T> setTopics(String... topics) {
    return setTopics(List.of(topics));
  }

  public KafkaSourceBuilder<T> setTopics(List<String> topics) {
    if (topics.isEmpty()) {
      throw new IllegalArgumentException("setTopics(...) needs at least one topic");
    }
    this.subscription = new KafkaSubscription.Topics(List.copyOf(topics));
    return this;
  }

  /** Every topic whose whole name matches, including topics created while the job runs. */
  public KafkaSourceBuilder<T> setTopicPattern(Pattern pattern) {
    this.subscription = new KafkaSubscription.TopicPattern(Objects.requireNonNull(pattern));
    return this;
  }

  /** The consumer group ({@code group.id}): for committed starting offsets and for monitoring. */
  public KafkaSourceBuilder<T> setGroupId(String groupId) {
    return setProperty(ConsumerConfig.GROUP_ID_CONFIG, groupId);
  }

  /** Where a job started without state begins; the earliest offsets by default. */
  public KafkaSourceBuilder<T> setStartingOffsets(OffsetsInitializer startingOffsets) {
    this.startingOffsets = Objects.requireNonNull(startingOffsets, "startingOffsets");
    return this;
  }

  /**
   * Makes the source bounded: each partition ends at the offset {@code stoppingOffsets} resolves to
   * when the job starts ({@link OffsetsInitializer#latest()}: what was there at start). Partition
   * discovery is off for a bounded source.
   */
  public KafkaSourceBuilder<T> setBounded(OffsetsInitializer stoppingOffsets) {
    this.stoppingOffsets = Objects.requireNonNull(stoppingOffsets, "stoppingOffsets");
    return this;
  }

  public KafkaSourceBuilder<T> setDeserializer(KafkaRecordDeserializer<T> deserializer) {
    this.deserializer = Objects.requireNonNull(deserializer, "deserializer");
    return this;
  }

  /** What to do with a record the deserializer throws on; {@code FAIL} by default. */
  public KafkaSourceBuilder<T> setDeserializationFailurePolicy(
      DeserializationFailurePolicy policy) {
    this.failurePolicy = Objects.requireNonNull(policy, "policy");
    return this;
  }

  /**
   * A consumer property, or one of the source's own: {@value #PARTITION_DISCOVERY_INTERVAL_MS} (5
   * min by default) and {@value #COMMIT_OFFSETS_ON_CHECKPOINT} (true). {@code isolation.level} is
   * {@code read_committed} unless set.
   */
  public KafkaSourceBuilder<T> setProperty(String key, String value) {
    properties.setProperty(Objects.requireNonNull(key, "key"), Objects.requireNonNull(value, key));
    return this;
  }

  public KafkaSourceBuilder<T> setProperties(Properties props) {
    props.forEach((k, v) -> setProperty(k.toString(), v.toString()));
    return this;
  }

  public KafkaSource<T> build() {
    if (bootstrapServers == null) {
      throw new IllegalStateException(
          "KafkaSource needs the brokers: call setBootstrapServers(\"host:port\")");
    }
    if (subscription == null) {
      throw new IllegalStateException(
          "KafkaSource needs topics: call setTopics(...) or setTopicPattern(...)");
    }
    if (deserializer == null) {
      throw new IllegalStateException(
          "KafkaSource needs a deserializer: call setDeserializer(...), e.g."
              + " KafkaRecordDeserializer.valueAsString()");
    }
    Properties consumer = new Properties();
    consumer.putAll(properties);
    long discovery =
        Long.parseLong(
            (String)
                consumer.getOrDefault(
                    PARTITION_DISCOVERY_INTERVAL_MS,
                    String.valueOf(DEFAULT_DISCOVERY_INTERVAL_MS)));
    boolean commit =
        Boolean.parseBoolean((String) consumer.getOrDefault(COMMIT_OFFSETS_ON_CHECKPOINT, "true"));
    consumer.remove(PARTITION_DISCOVERY_INTERVAL_MS);
    consumer.remove(COMMIT_OFFSETS_ON_CHECKPOINT);
    consumer.putIfAbsent(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
    return new KafkaSource<>(
        new KafkaClient(bootstrapServers, consumer),
        subscription,
        startingOffsets,
        stoppingOffsets,
        deserializer,
        failurePolicy,
        stoppingOffsets == null ? discovery : -1,
        commit);
  }
}

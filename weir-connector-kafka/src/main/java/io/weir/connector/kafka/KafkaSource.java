package io.weir.connector.kafka;

import io.weir.api.source.Boundedness;
import io.weir.api.source.SimpleVersionedSerializer;
import io.weir.api.source.Source;
import io.weir.api.source.SourceReader;
import io.weir.api.source.SourceReaderContext;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.Set;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.common.TopicPartition;

/**
 * Reads Kafka topics with exactly-once state: Flink's {@code KafkaSource}.
 *
 * <pre>{@code
 * KafkaSource<String> source = KafkaSource.<String>builder()
 *     .setBootstrapServers("broker:9092")
 *     .setTopics("orders")
 *     .setGroupId("order-counter")
 *     .setStartingOffsets(OffsetsInitializer.earliest())
 *     .setDeserializer(KafkaRecordDeserializer.valueAsString())
 *     .build();
 * env.fromSource(source, "orders", Types.STRING);
 * }</pre>
 *
 * <p>Every partition is a split with its next offset; the splits are the source's checkpointed
 * state, so a restore resumes each partition exactly where the checkpoint was taken, whatever the
 * consumer group has committed (offsets are committed to the group when a checkpoint completes, for
 * monitoring only). Each partition belongs to one fixed subtask ({@link #ownerOf}), so every reader
 * discovers new partitions and topics on its own and takes only its own, from the earliest offset.
 * A bounded source stops at the offsets resolved when the job starts.
 */
public final class KafkaSource<T> implements Source<T, KafkaPartitionSplit> {
  private static final long serialVersionUID = 1L;

  final KafkaClient client;
  final KafkaSubscription subscription;
  final OffsetsInitializer startingOffsets;
  final OffsetsInitializer stoppingOffsets;
  final KafkaRecordDeserializer<T> deserializer;
  final DeserializationFailurePolicy failurePolicy;
  final long discoveryIntervalMs;
  final boolean commitOffsetsOnCheckpoint;

  KafkaSource(
      KafkaClient client,
      KafkaSubscription subscription,
      OffsetsInitializer startingOffsets,
      OffsetsInitializer stoppingOffsets,
      KafkaRecordDeserializer<T> deserializer,
      DeserializationFailurePolicy failurePolicy,
      long discoveryIntervalMs,
      boolean commitOffsetsOnCheckpoint) {
    this.client = client;
    this.subscription = subscription;
    this.startingOffsets = startingOffsets;
    this.stoppingOffsets = stoppingOffsets;
    this.deserializer = deserializer;
    this.failurePolicy = failurePolicy;
    this.discoveryIntervalMs = discoveryIntervalMs;
    this.commitOffsetsOnCheckpoint = commitOffsetsOnCheckpoint;
  }

  public static <T> KafkaSourceBuilder<T> builder() {
    return new KafkaSourceBuilder<>();
  }

  @Override
  public Boundedness getBoundedness() {
    return stoppingOffsets == null ? Boundedness.CONTINUOUS_UNBOUNDED : Boundedness.BOUNDED;
  }

  /** Lists the partitions now and resolves their starting (and stopping) offsets. */
  @Override
  public List<KafkaPartitionSplit> createSplits(int parallelism) {
    try (Admin admin = client.createAdmin()) {
      Set<TopicPartition> partitions = subscription.partitions(admin, client);
      Map<TopicPartition, Long> start = startingOffsets.resolve(partitions, admin, client);
      Map<TopicPartition, Long> stop =
          stoppingOffsets == null ? Map.of() : stoppingOffsets.resolve(partitions, admin, client);
      List<KafkaPartitionSplit> splits = new ArrayList<>();
      for (TopicPartition tp : partitions) {
        long from = start.get(tp);
        long to = stoppingOffsets == null ? KafkaPartitionSplit.NO_STOPPING_OFFSET : stop.get(tp);
        splits.add(new KafkaPartitionSplit(tp.topic(), tp.partition(), from, to));
      }
      splits.sort(
          Comparator.comparing(KafkaPartitionSplit::topic)
              .thenComparingInt(KafkaPartitionSplit::partition));
      return splits;
    }
  }

  @Override
  public SourceReader<T, KafkaPartitionSplit> createReader(SourceReaderContext context) {
    return new KafkaSourceReader<>(this, context);
  }

  @Override
  public SimpleVersionedSerializer<KafkaPartitionSplit> getSplitSerializer() {
    return new KafkaPartitionSplit.Serializer();
  }

  /** Each partition belongs to one subtask, whether it was listed at start or discovered later. */
  @Override
  public OptionalInt ownerOf(KafkaPartitionSplit split, int parallelism) {
    return OptionalInt.of(owner(split.topic(), split.partition(), parallelism));
  }

  /**
   * The subtask that reads a partition: as Flink's {@code KafkaSourceEnumerator}, a topic's
   * partitions go round robin over the subtasks from a start that depends on the topic's name.
   */
  static int owner(String topic, int partition, int parallelism) {
    int start = ((topic.hashCode() * 31) & 0x7FFFFFFF) % parallelism;
    return (start + partition) % parallelism;
  }

  @Override
  public String toString() {
    return "KafkaSource(" + subscription + " at " + client.bootstrapServers() + ")";
  }
}

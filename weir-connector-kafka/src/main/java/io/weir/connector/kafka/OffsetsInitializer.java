package io.weir.connector.kafka;

import java.io.Serializable;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ListOffsetsOptions;
import org.apache.kafka.clients.admin.ListOffsetsResult;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.TopicPartition;

/**
 * Where a {@link KafkaSource} starts reading a partition, or where a bounded one stops: Flink's
 * {@code OffsetsInitializer}. Resolved to concrete offsets once, when the job starts without state;
 * a restore always resumes at the checkpointed offsets instead.
 */
public sealed interface OffsetsInitializer extends Serializable {

  /** The first offset still in the log. */
  static OffsetsInitializer earliest() {
    return new Earliest();
  }

  /**
   * The end of the log when the job starts: for a {@code read_committed} source its last stable
   * offset, so a bounded source never waits for an open transaction.
   */
  static OffsetsInitializer latest() {
    return new Latest();
  }

  /** The consumer group's committed offsets; partitions without one start at the earliest. */
  static OffsetsInitializer committedOffsets() {
    return new Committed(new Earliest());
  }

  /** The consumer group's committed offsets; partitions without one follow {@code fallback}. */
  static OffsetsInitializer committedOffsets(OffsetsInitializer fallback) {
    if (fallback instanceof Committed) {
      throw new IllegalArgumentException("committedOffsets(...) cannot fall back to itself");
    }
    return new Committed(Objects.requireNonNull(fallback, "fallback"));
  }

  /**
   * The first record whose timestamp is at or after {@code epochMillis}; the end of the log where
   * there is none.
   */
  static OffsetsInitializer timestamp(long epochMillis) {
    return new Timestamp(epochMillis);
  }

  /** Given offsets; partitions not in the map start at the earliest. */
  static OffsetsInitializer offsets(Map<TopicPartition, Long> offsets) {
    return new Specific(Map.copyOf(offsets));
  }

  /** The earliest offset. */
  record Earliest() implements OffsetsInitializer {}

  /** The latest offset. */
  record Latest() implements OffsetsInitializer {}

  /** The committed offsets of the group, else {@code fallback}. */
  record Committed(OffsetsInitializer fallback) implements OffsetsInitializer {}

  /** The first offset at or after a timestamp. */
  record Timestamp(long epochMillis) implements OffsetsInitializer {}

  /** Explicit offsets, else the earliest. */
  record Specific(Map<TopicPartition, Long> offsets) implements OffsetsInitializer {}

  /** Resolves this initializer for {@code partitions}; {@code client} says how to reach Kafka. */
  default Map<TopicPartition, Long> resolve(
      Collection<TopicPartition> partitions, Admin admin, KafkaClient client) {
    Map<TopicPartition, Long> result = new HashMap<>();
    if (partitions.isEmpty()) {
      return result;
    }
    if (this instanceof Earliest) {
      result.putAll(list(partitions, OffsetSpec.earliest(), admin, client));
    } else if (this instanceof Latest) {
      result.putAll(list(partitions, OffsetSpec.latest(), admin, client));
    } else if (this instanceof Timestamp t) {
      Map<TopicPartition, Long> found =
          list(partitions, OffsetSpec.forTimestamp(t.epochMillis()), admin, client);
      List<TopicPartition> none = new ArrayList<>();
      found.forEach(
          (tp, offset) -> {
            if (offset < 0) {
              none.add(tp);
            } else {
              result.put(tp, offset);
            }
          });
      result.putAll(list(none, OffsetSpec.latest(), admin, client));
    } else if (this instanceof Specific s) {
      List<TopicPartition> rest = new ArrayList<>();
      for (TopicPartition tp : partitions) {
        Long offset = s.offsets().get(tp);
        if (offset == null) {
          rest.add(tp);
        } else {
          result.put(tp, offset);
        }
      }
      result.putAll(new Earliest().resolve(rest, admin, client));
    } else if (this instanceof Committed c) {
      String group = client.groupId();
      if (group == null) {
        throw new IllegalArgumentException(
            "OffsetsInitializer.committedOffsets() needs a consumer group: set one with"
                + " setGroupId(...) (group.id)");
      }
      Map<TopicPartition, OffsetAndMetadata> committed =
          client.await(
              admin.listConsumerGroupOffsets(group).partitionsToOffsetAndMetadata(),
              "reading the committed offsets of consumer group '" + group + "'");
      List<TopicPartition> rest = new ArrayList<>();
      for (TopicPartition tp : partitions) {
        OffsetAndMetadata offset = committed.get(tp);
        if (offset == null) {
          rest.add(tp);
        } else {
          result.put(tp, offset.offset());
        }
      }
      result.putAll(c.fallback().resolve(rest, admin, client));
    }
    return result;
  }

  private static Map<TopicPartition, Long> list(
      Collection<TopicPartition> partitions, OffsetSpec spec, Admin admin, KafkaClient client) {
    Map<TopicPartition, OffsetSpec> request = new HashMap<>();
    for (TopicPartition tp : partitions) {
      request.put(tp, spec);
    }
    Map<TopicPartition, ListOffsetsResult.ListOffsetsResultInfo> offsets =
        client.await(
            admin.listOffsets(request, new ListOffsetsOptions(client.isolationLevel())).all(),
            "listing the offsets of " + partitions);
    Map<TopicPartition, Long> result = new HashMap<>();
    offsets.forEach((tp, info) -> result.put(tp, info.offset()));
    return result;
  }

  /** For {@code read_committed}, "latest" is the last stable offset. */
  static IsolationLevel isolation(String value) {
    return "read_uncommitted".equalsIgnoreCase(value)
        ? IsolationLevel.READ_UNCOMMITTED
        : IsolationLevel.READ_COMMITTED;
  }
}

package io.weir.connector.kafka;

import io.weir.api.source.InputStatus;
import io.weir.api.source.ReaderOutput;
import io.weir.api.source.SourceReader;
import io.weir.api.source.SourceReaderContext;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads the partitions of one {@link KafkaSource} subtask. Runs on the task thread; the consumer
 * lives on a {@link KafkaFetcher} thread. The next offset of each partition is kept here, advanced
 * only as records are emitted, so a snapshot between two {@link #pollNext} calls is an exact
 * position.
 */
final class KafkaSourceReader<T> implements SourceReader<T, KafkaPartitionSplit> {
  private static final Logger LOG = LoggerFactory.getLogger(KafkaSourceReader.class);

  private final KafkaSource<T> source;
  private final SourceReaderContext context;
  private final Map<TopicPartition, PartitionState> partitions = new LinkedHashMap<>();
  private final TreeMap<Long, Map<TopicPartition, Long>> offsetsToCommit = new TreeMap<>();
  private KafkaFetcher fetcher;

  /** Records skipped by {@link DeserializationFailurePolicy#SKIP} in this attempt; logged. */
  private long skippedRecords;

  /** A partition's progress. Task thread only. */
  private static final class PartitionState {
    final TopicPartition tp;
    final long stoppingOffset;
    long next;

    /**
     * Where this partition's records go: its own split output, so that with a watermark strategy
     * the partition has its own generator (and idleness). Created when the partition is first
     * polled for, before any of its records, so a partition that has not delivered yet holds the
     * subtask's watermark back instead of letting its first records arrive late.
     */
    ReaderOutput<?> output;

    PartitionState(KafkaPartitionSplit split) {
      this.tp = split.topicPartition();
      this.next = split.startingOffset();
      this.stoppingOffset = split.stoppingOffset();
    }

    boolean bounded() {
      return stoppingOffset != KafkaPartitionSplit.NO_STOPPING_OFFSET;
    }

    boolean finished() {
      return bounded() && next >= stoppingOffset;
    }
  }

  KafkaSourceReader(KafkaSource<T> source, SourceReaderContext context) {
    this.source = source;
    this.context = context;
  }

  @Override
  public void addSplits(List<KafkaPartitionSplit> splits) {
    for (KafkaPartitionSplit split : splits) {
      partitions.put(split.topicPartition(), new PartitionState(split));
    }
  }

  @Override
  public InputStatus pollNext(ReaderOutput<T> output) throws Exception {
    if (isBounded() && allFinished()) {
      return InputStatus.END_OF_INPUT;
    }
    if (fetcher == null) {
      startFetcher();
    }
    openSplitOutputs(output);
    KafkaFetcher.Fetch fetch = fetcher.poll();
    if (fetch == null) {
      return InputStatus.NOTHING_AVAILABLE;
    }
    for (KafkaPartitionSplit split : fetch.discovered()) {
      partitions.putIfAbsent(split.topicPartition(), new PartitionState(split));
    }
    openSplitOutputs(output);
    for (ConsumerRecord<byte[], byte[]> record : fetch.records()) {
      PartitionState state = partitions.get(new TopicPartition(record.topic(), record.partition()));
      if (state == null || state.finished() || record.offset() < state.next) {
        continue;
      }
      if (state.bounded() && record.offset() >= state.stoppingOffset) {
        state.next = state.stoppingOffset;
        continue;
      }
      emit(record, splitOutput(state, output));
      state.next = record.offset() + 1;
    }
    fetch
        .positions()
        .forEach(
            (tp, position) -> {
              PartitionState state = partitions.get(tp);
              if (state != null) {
                long end = state.bounded() ? Math.min(position, state.stoppingOffset) : position;
                state.next = Math.max(state.next, end);
                if (state.finished()) {
                  fetcher.unassign(tp);
                }
              }
            });
    for (PartitionState state : partitions.values()) {
      if (state.finished()) {
        releaseSplitOutput(state, output);
      }
    }
    if (isBounded() && allFinished()) {
      return InputStatus.END_OF_INPUT;
    }
    return fetcher.hasMore() ? InputStatus.MORE_AVAILABLE : InputStatus.NOTHING_AVAILABLE;
  }

  private void emit(ConsumerRecord<byte[], byte[]> record, ReaderOutput<T> output) {
    T value;
    try {
      value = source.deserializer.deserialize(record);
    } catch (Exception e) {
      String where =
          "the record at offset "
              + record.offset()
              + " of partition "
              + record.partition()
              + " of topic '"
              + record.topic()
              + "'";
      if (source.failurePolicy == DeserializationFailurePolicy.SKIP) {
        skippedRecords++;
        LOG.warn(
            "Skipped {} (the deserializer threw {}); {} records skipped so far by subtask {}",
            where,
            e.toString(),
            skippedRecords,
            context.subtaskIndex());
        return;
      }
      throw new KafkaConnectorException(
          "Cannot deserialize "
              + where
              + ": "
              + e
              + ". Fix the record's producer or the deserializer, or skip such records with"
              + " setDeserializationFailurePolicy(DeserializationFailurePolicy.SKIP).",
          e);
    }
    if (value != null) {
      output.collect(value, record.timestamp());
    }
  }

  /** The split id of a partition, which names its watermark in checkpoints: {@code topic-p}. */
  static String splitId(TopicPartition tp) {
    return tp.topic() + "-" + tp.partition();
  }

  /** Every unfinished partition gets its split output, records or not (see PartitionState). */
  private void openSplitOutputs(ReaderOutput<T> output) {
    for (PartitionState state : partitions.values()) {
      if (state.output == null && !state.finished()) {
        state.output = output.createOutputForSplit(splitId(state.tp));
      }
    }
  }

  @SuppressWarnings("unchecked")
  private ReaderOutput<T> splitOutput(PartitionState state, ReaderOutput<T> output) {
    if (state.output == null) {
      state.output = output.createOutputForSplit(splitId(state.tp));
    }
    return (ReaderOutput<T>) state.output;
  }

  /** A bounded partition that reached its stopping offset no longer holds event time back. */
  private void releaseSplitOutput(PartitionState state, ReaderOutput<T> output) {
    if (state.output != null) {
      output.releaseOutputForSplit(splitId(state.tp));
      state.output = null;
    }
  }

  private boolean isBounded() {
    return source.stoppingOffsets != null;
  }

  private boolean allFinished() {
    for (PartitionState state : partitions.values()) {
      if (!state.finished()) {
        return false;
      }
    }
    return true;
  }

  private void startFetcher() {
    Map<TopicPartition, Long> positions = new HashMap<>();
    Set<TopicPartition> finished = new HashSet<>();
    for (PartitionState state : partitions.values()) {
      if (state.finished()) {
        finished.add(state.tp);
      } else {
        positions.put(state.tp, state.next);
      }
    }
    fetcher =
        new KafkaFetcher(
            source,
            source.toString(),
            context.subtaskIndex(),
            context.parallelism(),
            positions,
            finished);
    fetcher.start();
  }

  @Override
  public CompletableFuture<Void> isAvailable() {
    if (fetcher == null) {
      return CompletableFuture.completedFuture(null);
    }
    return fetcher.available();
  }

  @Override
  public List<KafkaPartitionSplit> snapshotState(long checkpointId) {
    List<KafkaPartitionSplit> splits = new ArrayList<>(partitions.size());
    Map<TopicPartition, Long> offsets = new HashMap<>();
    for (PartitionState state : partitions.values()) {
      splits.add(
          new KafkaPartitionSplit(
              state.tp.topic(), state.tp.partition(), state.next, state.stoppingOffset));
      offsets.put(state.tp, state.next);
    }
    if (source.commitOffsetsOnCheckpoint && source.client.groupId() != null) {
      offsetsToCommit.put(checkpointId, offsets);
    }
    return splits;
  }

  /** Commits the completed checkpoint's offsets to the consumer group, for monitoring only. */
  @Override
  public void notifyCheckpointComplete(long checkpointId) {
    Map.Entry<Long, Map<TopicPartition, Long>> entry = offsetsToCommit.floorEntry(checkpointId);
    if (entry == null) {
      return;
    }
    offsetsToCommit.headMap(checkpointId, true).clear();
    if (fetcher != null && !entry.getValue().isEmpty()) {
      fetcher.commit(entry.getValue(), entry.getKey());
    }
  }

  @Override
  public void close() throws Exception {
    if (fetcher != null) {
      fetcher.close();
    }
  }
}

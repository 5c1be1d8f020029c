package io.weir.runtime.task;

import io.weir.api.eventtime.TimestampAssigner;
import io.weir.api.eventtime.Watermark;
import io.weir.api.eventtime.WatermarkGenerator;
import io.weir.api.eventtime.WatermarkOutput;
import io.weir.api.eventtime.WatermarkStrategy;
import io.weir.api.source.ReaderOutput;
import io.weir.runtime.operators.Output;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.LongConsumer;

/**
 * Event time of one source subtask, as Flink's {@code ProgressiveTimestampsAndWatermarks}: every
 * split the reader emits through ({@link ReaderOutput#createOutputForSplit}; the reader's own
 * output counts as one more) has its own timestamp assigner and watermark generator; the subtask's
 * watermark is the minimum over its active splits, and the subtask is idle when all are (or when it
 * has no split at all). Each split's last watermark is checkpointed, so that after a restore the
 * split's watermark does not go back and the subtask re-emits its watermark before any record.
 *
 * <p>Only created for sources with a watermark strategy, so a source without one pays nothing per
 * record. Task thread only.
 */
final class SourceWatermarks<T> {

  /** The key of the reader's own output in checkpoints (split ids are the reader's). */
  private static final String MAIN = "";

  private final WatermarkStrategy<T> strategy;
  private final Output<T> chain;
  private final int subtask;
  private final int parallelism;
  private final Map<String, SplitOutput> outputs = new LinkedHashMap<>();

  /** Restored split watermarks not yet claimed by an output: seeds, and kept in checkpoints. */
  private final Map<String, Long> restored = new HashMap<>();

  private long emitted = Long.MIN_VALUE;
  private LongConsumer onEmit = watermark -> {};
  private boolean idle;
  private boolean periodic;

  SourceWatermarks(WatermarkStrategy<T> strategy, Output<T> chain, int subtask, int parallelism) {
    this.strategy = strategy;
    this.chain = chain;
    this.subtask = subtask;
    this.parallelism = parallelism;
  }

  /** Tells {@code listener} of every watermark emitted from now on (the task's metrics). */
  void onEmit(LongConsumer listener) {
    this.onEmit = listener;
  }

  /**
   * Takes the checkpointed split watermarks. When the parallelism is unchanged, the entries this
   * subtask wrote are its own splits', and their minimum is emitted at once, so downstream event
   * time continues where the checkpoint left it before the first record arrives.
   */
  void restore(List<Entry> entries) {
    long ownMin = Long.MAX_VALUE;
    boolean own = false;
    for (Entry e : entries) {
      boolean mine = e.parallelism() == parallelism && e.subtask() == subtask;
      if (e.key().equals(MAIN) && !mine) {
        continue;
      }
      restored.merge(e.key(), e.watermark(), Math::max);
      if (mine) {
        own = true;
        ownMin = Math.min(ownMin, e.watermark());
      }
    }
    if (own && ownMin > Long.MIN_VALUE) {
      emitted = ownMin;
      onEmit.accept(ownMin);
      chain.emitWatermark(ownMin);
    }
  }

  /** A subtask without splits never has records: it is idle from the start, as in Flink. */
  void markIdleWithoutSplits() {
    if (outputs.isEmpty() && !idle) {
      idle = true;
      chain.emitWatermarkStatus(true);
    }
  }

  /** The reader's own output. */
  ReaderOutput<T> main() {
    return output(MAIN);
  }

  ReaderOutput<T> output(String splitId) {
    SplitOutput out = outputs.get(splitId);
    if (out == null) {
      Long seed = restored.remove(splitId);
      out = new SplitOutput(splitId, seed == null ? Long.MIN_VALUE : seed);
      outputs.put(splitId, out);
      if (idle) {
        idle = false;
        chain.emitWatermarkStatus(false);
      }
    }
    return out;
  }

  void release(String splitId) {
    if (outputs.remove(splitId) != null) {
      combine();
    }
  }

  /** Every {@code pipeline.auto-watermark-interval}: each generator may emit, then one combine. */
  void onPeriodicEmit() {
    periodic = true;
    try {
      for (SplitOutput out : outputs.values()) {
        out.generator.onPeriodicEmit(out);
      }
    } finally {
      periodic = false;
    }
    combine();
  }

  private void combine() {
    if (periodic) {
      return;
    }
    long min = Long.MAX_VALUE;
    boolean anyActive = false;
    for (SplitOutput out : outputs.values()) {
      if (!out.idle) {
        anyActive = true;
        min = Math.min(min, out.watermark);
      }
    }
    if (!anyActive) {
      if (!idle && !outputs.isEmpty()) {
        idle = true;
        chain.emitWatermarkStatus(true);
      }
      return;
    }
    if (idle) {
      idle = false;
      chain.emitWatermarkStatus(false);
    }
    if (min > emitted) {
      emitted = min;
      onEmit.accept(min);
      chain.emitWatermark(min);
    }
  }

  /** The split watermarks to checkpoint. */
  List<Entry> snapshot() {
    List<Entry> entries = new ArrayList<>();
    for (SplitOutput out : outputs.values()) {
      if (out.watermark > Long.MIN_VALUE) {
        entries.add(new Entry(out.key, out.watermark, parallelism, subtask));
      }
    }
    restored.forEach((key, wm) -> entries.add(new Entry(key, wm, parallelism, subtask)));
    return entries;
  }

  /**
   * One checkpointed split watermark.
   *
   * @param key the split id ("" for the reader's own output)
   * @param watermark the split's last watermark
   * @param parallelism the source's parallelism when it was written
   * @param subtask the subtask that wrote it
   */
  record Entry(String key, long watermark, int parallelism, int subtask) {
    byte[] toBytes() {
      try {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        DataOutputStream out = new DataOutputStream(bytes);
        out.writeUTF(key);
        out.writeLong(watermark);
        out.writeInt(parallelism);
        out.writeInt(subtask);
        out.flush();
        return bytes.toByteArray();
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }

    static Entry fromBytes(byte[] bytes) throws IOException {
      DataInputStream in = new DataInputStream(new ByteArrayInputStream(bytes));
      return new Entry(in.readUTF(), in.readLong(), in.readInt(), in.readInt());
    }
  }

  /** The records and watermarks of one split. */
  private final class SplitOutput implements ReaderOutput<T>, WatermarkOutput {
    final String key;
    final TimestampAssigner<T> assigner;
    final WatermarkGenerator<T> generator;
    long watermark;
    boolean idle;

    SplitOutput(String key, long seed) {
      this.key = key;
      this.assigner = strategy.createTimestampAssigner();
      this.generator = strategy.createWatermarkGenerator(new WatermarkGeneratorSupplier());
      this.watermark = seed;
    }

    @Override
    public void collect(T record) {
      collect(record, TimestampAssigner.NO_TIMESTAMP);
    }

    @Override
    public void collect(T record, long timestamp) {
      long assigned = assigner.extractTimestamp(record, timestamp);
      // The record first, then the generator's watermark, as in Flink (see the operator).
      chain.collect(record, assigned);
      generator.onEvent(record, assigned, this);
    }

    @Override
    public void emitWatermark(Watermark w) {
      if (idle) {
        idle = false;
      }
      if (w.timestamp() > watermark) {
        watermark = w.timestamp();
      }
      combine();
    }

    @Override
    public void markIdle() {
      if (!idle) {
        idle = true;
        combine();
      }
    }

    @Override
    public void markActive() {
      if (idle) {
        idle = false;
        combine();
      }
    }
  }

  private static final class WatermarkGeneratorSupplier
      implements io.weir.api.eventtime.WatermarkGeneratorSupplier.Context {}
}

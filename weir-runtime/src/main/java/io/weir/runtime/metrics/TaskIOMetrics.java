package io.weir.runtime.metrics;

import java.util.function.LongSupplier;

/**
 * What one subtask measures about itself for its metrics (Flink's {@code TaskIOMetricGroup}): the
 * records and bytes it read and sent, the time it waited for input (idle) and for its outputs to
 * take more (back-pressured), and the start delay and alignment of its latest checkpoint. A
 * reporter turns these counters into rates and gauges; nothing here is called per record.
 *
 * <p>The task thread writes; any thread reads. The record and byte counts are the task's own
 * counters, read without a lock (a recent value, as Flink's reporters read its counters).
 */
public final class TaskIOMetrics {

  private final LongSupplier recordsIn;
  private final LongSupplier recordsOut;
  private final LongSupplier bytesIn;
  private final LongSupplier bytesOut;
  private final TimerGauge idle = new TimerGauge();
  private final TimerGauge backPressured = new TimerGauge();
  private volatile long checkpointStartDelayNanos;
  private volatile long checkpointAlignmentNanos;
  private volatile long inputWatermark = Long.MIN_VALUE;
  private volatile long outputWatermark = Long.MIN_VALUE;
  private volatile RestoreProgress restore;
  private volatile boolean initialized;
  private final UserMetrics userMetrics = new UserMetrics();

  /**
   * When the subtask was created (deployed), on the wall clock and on {@link System#nanoTime()}.
   */
  private final long createdAtMillis = System.currentTimeMillis();

  private final long createdAtNanos = System.nanoTime();

  /**
   * @param recordsIn the records the subtask read so far
   * @param recordsOut the records the subtask sent to other subtasks so far
   * @param bytesIn the bytes of the buffers the subtask took from its input channels so far
   * @param bytesOut the bytes of the buffers the subtask sent to other subtasks so far
   */
  public TaskIOMetrics(
      LongSupplier recordsIn,
      LongSupplier recordsOut,
      LongSupplier bytesIn,
      LongSupplier bytesOut) {
    this.recordsIn = recordsIn;
    this.recordsOut = recordsOut;
    this.bytesIn = bytesIn;
    this.bytesOut = bytesOut;
  }

  /** When the subtask was deployed here, epoch milliseconds. */
  public long createdAtMillis() {
    return createdAtMillis;
  }

  /** How long ago, up to {@code nowNanos} ({@link System#nanoTime()}), the subtask was deployed. */
  public long ageNanos(long nowNanos) {
    return Math.max(0, nowNanos - createdAtNanos);
  }

  /** Flink's {@code numRecordsIn}. */
  public long numRecordsIn() {
    return recordsIn.getAsLong();
  }

  /** Flink's {@code numRecordsOut}: records sent over the network, once per output edge. */
  public long numRecordsOut() {
    return recordsOut.getAsLong();
  }

  /**
   * Flink's {@code numBytesIn}: the serialized records the subtask read from its input channels,
   * local and remote, framing included; 0 for a source (what it reads from outside is not counted).
   */
  public long numBytesIn() {
    return bytesIn.getAsLong();
  }

  /**
   * Flink's {@code numBytesOut}: the serialized records the subtask sent to other subtasks, once
   * per channel they went to, framing included; chained operators and sinks send none.
   */
  public long numBytesOut() {
    return bytesOut.getAsLong();
  }

  /** Time spent waiting for input (or suspended for a savepoint): Flink's idle time. */
  public TimerGauge idleTime() {
    return idle;
  }

  /** Time spent waiting for an output to take more: Flink's back-pressured time. */
  public TimerGauge backPressuredTime() {
    return backPressured;
  }

  /**
   * From the trigger of the latest checkpoint to its first barrier reaching this subtask (sources:
   * to the trigger running), in nanoseconds; measured in milliseconds, as the trigger's timestamp
   * is. 0 before the first checkpoint.
   */
  public long checkpointStartDelayNanos() {
    return checkpointStartDelayNanos;
  }

  /**
   * From the first to the last barrier of the latest checkpoint at this subtask (0 when it was
   * taken unaligned), in nanoseconds; measured in milliseconds. 0 before the first checkpoint.
   */
  public long checkpointAlignmentNanos() {
    return checkpointAlignmentNanos;
  }

  /**
   * Flink's {@code currentInputWatermark}: the event time the subtask's inputs together have
   * reached, the minimum over its channels; {@link Long#MIN_VALUE} before a watermark came (and for
   * a source, which has no input channels).
   */
  public long currentInputWatermark() {
    return inputWatermark;
  }

  /** The subtask's inputs together reached {@code watermark}; task thread, once per watermark. */
  public void inputWatermark(long watermark) {
    inputWatermark = watermark;
  }

  /**
   * Flink's {@code currentOutputWatermark} of a source subtask: the watermark its splits together
   * emitted last; {@link Long#MIN_VALUE} before one, and for a subtask that is no source.
   */
  public long currentOutputWatermark() {
    return outputWatermark;
  }

  /** The source subtask emitted {@code watermark}; task thread, once per watermark. */
  public void outputWatermark(long watermark) {
    outputWatermark = watermark;
  }

  /** The metrics the subtask's functions registered on their operators' groups. */
  public UserMetrics userMetrics() {
    return userMetrics;
  }

  /** The subtask restores from a checkpoint, measured by {@code progress}; before it starts. */
  public void restoring(RestoreProgress progress) {
    restore = progress;
  }

  /** How far the subtask's restore has come; null when it started without state. */
  public RestoreProgress restore() {
    return restore;
  }

  /** The subtask's operators have their state and are open: it takes records from now on. */
  public void initialized() {
    RestoreProgress progress = restore;
    if (progress != null) {
      progress.end();
    }
    initialized = true;
  }

  /**
   * Whether the subtask is past its initialization (Flink's INITIALIZING: state restored, operators
   * open).
   */
  public boolean isInitialized() {
    return initialized;
  }

  /** The subtask took its snapshot of a checkpoint; task thread. */
  public void checkpointTaken(long startDelayMillis, long alignmentMillis) {
    checkpointStartDelayNanos = startDelayMillis * 1_000_000;
    checkpointAlignmentNanos = alignmentMillis * 1_000_000;
  }
}

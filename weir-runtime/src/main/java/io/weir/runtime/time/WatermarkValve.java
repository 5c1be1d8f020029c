package io.weir.runtime.time;

import java.util.Arrays;

/**
 * Combines the watermarks and idleness of a task's input channels into the task's event time, as
 * Flink's {@code StatusWatermarkValve}: the task's watermark is the minimum over the channels that
 * are active and have caught up, so an idle channel does not hold event time back, and a channel
 * that becomes active again only counts once its watermark reached the task's. When every channel
 * is idle the task is idle. A channel that ended counts as having reached the end of time. The
 * output never goes back. A plain state machine without threads or clocks; task thread only.
 */
public final class WatermarkValve {

  /**
   * Where event time stood on one channel, and in the task, at a moment: what an unaligned
   * checkpoint keeps with the channel's in-flight data so that a restored task continues from it.
   *
   * @param watermark the channel's watermark
   * @param idle whether the channel was idle
   * @param aligned whether the channel counted for the task's watermark
   * @param taskWatermark the task's watermark (the same for every channel)
   * @param taskIdle whether the task was idle (the same for every channel)
   */
  public record Position(
      long watermark, boolean idle, boolean aligned, long taskWatermark, boolean taskIdle) {}

  /** Where the combined event time goes. */
  public interface Output {
    void emitWatermark(long watermark);

    void emitWatermarkStatus(boolean idle);
  }

  private final long[] watermarks;
  private final boolean[] idle;

  /** True when the channel counts for the minimum: active and not behind the last output. */
  private final boolean[] aligned;

  private final Output output;
  private long lastOutput = Long.MIN_VALUE;
  private boolean outputIdle;

  public WatermarkValve(int channels, Output output) {
    this.watermarks = new long[channels];
    this.idle = new boolean[channels];
    this.aligned = new boolean[channels];
    Arrays.fill(watermarks, Long.MIN_VALUE);
    Arrays.fill(aligned, true);
    this.output = output;
  }

  /** The last watermark emitted, or {@code Long.MIN_VALUE}. */
  public long currentWatermark() {
    return lastOutput;
  }

  /** True when every channel is idle. */
  public boolean isIdle() {
    return outputIdle;
  }

  /** Where event time stands on {@code channel} and in the task now. */
  public Position position(int channel) {
    return new Position(
        watermarks[channel], idle[channel], aligned[channel], lastOutput, outputIdle);
  }

  /**
   * Puts every channel back where {@code positions} (by channel) say, and emits the task's
   * watermark and idleness from there: a restored task resumes the event time its checkpoint had.
   * Called before any input; the output must still be at its start.
   */
  public void restore(Position[] positions) {
    if (positions.length != watermarks.length) {
      throw new IllegalArgumentException(
          "Event time of "
              + positions.length
              + " channels cannot be restored into a task with "
              + watermarks.length);
    }
    if (lastOutput != Long.MIN_VALUE || outputIdle) {
      throw new IllegalStateException("Event time is restored before any input, not after");
    }
    long task = Long.MIN_VALUE;
    boolean taskIdle = false;
    for (int c = 0; c < positions.length; c++) {
      watermarks[c] = positions[c].watermark();
      idle[c] = positions[c].idle();
      aligned[c] = positions[c].aligned();
      task = Math.max(task, positions[c].taskWatermark());
      taskIdle = positions[c].taskIdle();
    }
    if (task > Long.MIN_VALUE) {
      lastOutput = task;
      output.emitWatermark(task);
    }
    if (taskIdle) {
      outputIdle = true;
      output.emitWatermarkStatus(true);
    }
  }

  /** A watermark arrived on {@code channel}; ignored while the channel is idle, as in Flink. */
  public void inputWatermark(int channel, long watermark) {
    if (idle[channel] || watermark <= watermarks[channel]) {
      return;
    }
    watermarks[channel] = watermark;
    if (!aligned[channel] && watermark >= lastOutput) {
      aligned[channel] = true;
    }
    emitNewMinimum();
  }

  /** {@code channel} became idle or active. */
  public void inputStatus(int channel, boolean nowIdle) {
    if (nowIdle == idle[channel]) {
      return;
    }
    idle[channel] = nowIdle;
    if (nowIdle) {
      aligned[channel] = false;
      if (allIdle()) {
        // Nothing holds event time back any more: it moves to the furthest channel, as in Flink.
        emitMaximum();
        if (!outputIdle) {
          outputIdle = true;
          output.emitWatermarkStatus(true);
        }
      } else {
        emitNewMinimum();
      }
    } else {
      aligned[channel] = watermarks[channel] >= lastOutput;
      if (outputIdle) {
        outputIdle = false;
        output.emitWatermarkStatus(false);
      }
    }
  }

  /** {@code channel} delivered its last record: it no longer holds event time back. */
  public void inputEnded(int channel) {
    if (idle[channel]) {
      inputStatus(channel, false);
    }
    inputWatermark(channel, Long.MAX_VALUE);
  }

  private boolean allIdle() {
    for (boolean i : idle) {
      if (!i) {
        return false;
      }
    }
    return true;
  }

  private void emitNewMinimum() {
    long min = Long.MAX_VALUE;
    boolean any = false;
    for (int c = 0; c < watermarks.length; c++) {
      if (aligned[c] && !idle[c]) {
        any = true;
        min = Math.min(min, watermarks[c]);
      }
    }
    if (any && min > lastOutput) {
      lastOutput = min;
      output.emitWatermark(min);
    }
  }

  private void emitMaximum() {
    long max = Long.MIN_VALUE;
    for (long w : watermarks) {
      max = Math.max(max, w);
    }
    if (max > lastOutput) {
      lastOutput = max;
      output.emitWatermark(max);
    }
  }
}

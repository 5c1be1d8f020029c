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

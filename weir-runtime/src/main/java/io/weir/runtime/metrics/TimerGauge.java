package io.weir.runtime.metrics;

/**
 * The time a task spends in one state, such as waiting for input or for its outputs to take more,
 * as a running total that includes a wait still under way (Flink's {@code TimerGauge}). The task
 * thread marks the start and the end of each wait; any thread reads the total. It reads no clock:
 * the callers pass {@link System#nanoTime()}.
 *
 * <p>A lock taken twice per wait, never per record: a wait parks the thread anyway, and a reader
 * never sees a wait both ended and still under way.
 */
public final class TimerGauge {

  private long totalNanos;

  /** When the wait under way started; meaningful only while {@link #measuring}. */
  private long startedAt;

  private boolean measuring;

  /** A wait starts at {@code nowNanos}; ignored when one is under way. */
  public synchronized void markStart(long nowNanos) {
    if (!measuring) {
      measuring = true;
      startedAt = nowNanos;
    }
  }

  /** The wait under way ends at {@code nowNanos}; ignored when none is. */
  public synchronized void markEnd(long nowNanos) {
    if (measuring) {
      measuring = false;
      totalNanos += Math.max(0, nowNanos - startedAt);
    }
  }

  /** The time spent in the state up to {@code nowNanos}, a wait under way included. */
  public synchronized long totalNanos(long nowNanos) {
    return measuring ? totalNanos + Math.max(0, nowNanos - startedAt) : totalNanos;
  }
}

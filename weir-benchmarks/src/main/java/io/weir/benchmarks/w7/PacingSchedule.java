package io.weir.benchmarks.w7;

import java.util.concurrent.locks.LockSupport;
import java.util.function.LongConsumer;
import java.util.function.LongSupplier;

/**
 * The pace of one source subtask: record {@code n} (from 0) is due {@code n / rate} seconds after
 * the origin. Each due time is computed from {@code n}, never from when the previous record went
 * out, so the pace does not drift, and a subtask that fell behind (a checkpoint, a GC pause,
 * backpressure) emits what is overdue back to back until it has caught up. Waits are {@link
 * LockSupport#parkNanos} of at most {@link #MAX_PARK_NANOS}: on this 2-core machine a busy spin
 * would take a core from the job, and the kernel's timer slack (about 50 µs) makes the records come
 * out in small bursts of a few each, as {@code LatencyProbe}'s producer sends them.
 *
 * <p>Not thread-safe: one instance per subtask, called from that subtask's thread.
 */
public final class PacingSchedule {
  static final long NANOS_PER_SECOND = 1_000_000_000L;

  /** The longest single park: a late record is noticed within this long. */
  static final long MAX_PARK_NANOS = 200_000L;

  private final long ratePerSecond;
  private final long originNanos;
  private final LongSupplier clock;
  private final LongConsumer park;
  private long next;

  /**
   * @param ratePerSecond records per second, at least 1
   * @param originNanos when record 0 is due, on {@code clock}'s scale
   * @param clock the time in nanoseconds, {@link System#nanoTime} outside tests
   * @param park waits about the given nanoseconds, {@link LockSupport#parkNanos} outside tests
   */
  PacingSchedule(long ratePerSecond, long originNanos, LongSupplier clock, LongConsumer park) {
    if (ratePerSecond < 1) {
      throw new IllegalArgumentException(
          "A pacing rate is at least 1 record per second, not " + ratePerSecond);
    }
    this.ratePerSecond = ratePerSecond;
    this.originNanos = originNanos;
    this.clock = clock;
    this.park = park;
  }

  /** A schedule at {@code ratePerSecond} whose first record is due now. */
  public static PacingSchedule startingNow(long ratePerSecond) {
    return new PacingSchedule(
        ratePerSecond, System.nanoTime(), System::nanoTime, LockSupport::parkNanos);
  }

  /** When record {@code n} is due: exact to the nanosecond, no overflow for any {@code n >= 0}. */
  long dueNanos(long n) {
    return originNanos
        + n / ratePerSecond * NANOS_PER_SECOND
        + n % ratePerSecond * NANOS_PER_SECOND / ratePerSecond;
  }

  /**
   * Waits until the next record is due (not at all if it is overdue) and counts it.
   *
   * @return how late it goes out: the clock's reading at return minus its due time, 0 or more
   */
  public long awaitNext() {
    long due = dueNanos(next++);
    long now = clock.getAsLong();
    while (now < due) {
      park.accept(Math.min(due - now, MAX_PARK_NANOS));
      now = clock.getAsLong();
    }
    return now - due;
  }

  /** Records counted by {@link #awaitNext} so far. */
  public long emitted() {
    return next;
  }
}

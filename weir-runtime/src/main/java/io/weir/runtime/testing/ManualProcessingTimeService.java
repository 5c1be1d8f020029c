package io.weir.runtime.testing;

import io.weir.runtime.time.ProcessingTimeService;
import java.util.Comparator;
import java.util.PriorityQueue;

/**
 * A processing-time clock that moves only when a test says so: {@link #advanceTo} sets the time and
 * runs, in time order, every callback registered for that time or earlier, on the calling thread.
 * Callbacks that register further callbacks due by then run in the same call. Not thread-safe: the
 * test thread plays the task thread.
 */
public final class ManualProcessingTimeService implements ProcessingTimeService {

  private record Scheduled(long timestamp, long sequence, Callback callback) {}

  private final PriorityQueue<Scheduled> scheduled =
      new PriorityQueue<>(
          Comparator.comparingLong(Scheduled::timestamp).thenComparingLong(Scheduled::sequence));
  private long now;
  private long sequence;

  /** A clock that reads {@code startTime} until advanced. */
  public ManualProcessingTimeService(long startTime) {
    this.now = startTime;
  }

  @Override
  public long getCurrentProcessingTime() {
    return now;
  }

  @Override
  public Cancellable registerTimer(long timestamp, Callback callback) {
    Scheduled entry = new Scheduled(timestamp, sequence++, callback);
    scheduled.add(entry);
    return () -> scheduled.remove(entry);
  }

  /**
   * Moves the clock to {@code time} (never backwards) and runs every callback due by then, each
   * with the timestamp it was registered for, as the task's mailbox would.
   */
  public void advanceTo(long time) throws Exception {
    now = Math.max(now, time);
    Scheduled next;
    while ((next = scheduled.peek()) != null && next.timestamp() <= now) {
      scheduled.poll();
      next.callback().onProcessingTime(next.timestamp());
    }
  }

  /** Callbacks registered and not yet run or cancelled. */
  public int numberOfScheduledCallbacks() {
    return scheduled.size();
  }
}

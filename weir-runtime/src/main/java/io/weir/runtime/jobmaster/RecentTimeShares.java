package io.weir.runtime.jobmaster;

import io.weir.runtime.taskexecutor.ExecutionAttemptId;
import io.weir.runtime.taskexecutor.SubtaskSample;
import java.util.ArrayDeque;
import java.util.Collection;
import java.util.Deque;
import java.util.HashMap;
import java.util.Iterator;
import java.util.Map;

/**
 * The shares of its recent time each subtask spent idle, back-pressured and busy (Flink's {@code
 * idleTimeMsPerSecond}, {@code backPressuredTimeMsPerSecond} and {@code busyTimeMsPerSecond} over
 * 1000), and its recent rates of records and bytes in and out (Flink's {@code
 * numRecordsInPerSecond} and the like), from the samples the REST API takes on demand. A share or a
 * rate is taken over a window of about {@link #WINDOW_NANOS}: from the newest earlier sample at
 * least that old, else from the oldest one at least {@link #MIN_WINDOW_NANOS} old, else since the
 * subtask was deployed. Samples are compared only with samples of the same subtask, on its task
 * executor's clock. Thread-safe.
 */
final class RecentTimeShares {

  /** The window Flink's time gauges average over. */
  static final long WINDOW_NANOS = 5_000_000_000L;

  /** A shorter window is noise: below it the share is taken since the deployment. */
  static final long MIN_WINDOW_NANOS = 1_000_000_000L;

  /**
   * Shares of a window, each 0 to 1, and rates per second over it; NaN when the window is empty.
   *
   * @param idle waiting for input
   * @param backPressured waiting for an output to take more
   * @param busy the rest
   * @param recordsInPerSecond records read
   * @param recordsOutPerSecond records sent to other subtasks
   * @param bytesInPerSecond bytes read from input channels
   * @param bytesOutPerSecond bytes sent to other subtasks
   */
  record Shares(
      double idle,
      double backPressured,
      double busy,
      double recordsInPerSecond,
      double recordsOutPerSecond,
      double bytesInPerSecond,
      double bytesOutPerSecond) {
    static final Shares UNKNOWN =
        new Shares(
            Double.NaN, Double.NaN, Double.NaN, Double.NaN, Double.NaN, Double.NaN, Double.NaN);
  }

  private record Point(
      long ageNanos,
      long idleNanos,
      long backPressuredNanos,
      long recordsIn,
      long recordsOut,
      long bytesIn,
      long bytesOut) {
    static final Point DEPLOYED = new Point(0, 0, 0, 0, 0, 0, 0);

    static Point of(SubtaskSample s) {
      return new Point(
          s.ageNanos(),
          s.idleNanos(),
          s.backPressuredNanos(),
          s.recordsIn(),
          s.recordsOut(),
          s.bytesIn(),
          s.bytesOut());
    }
  }

  private final Map<ExecutionAttemptId, Deque<Point>> points = new HashMap<>();

  /** Keeps {@code sample} and answers its subtask's shares over the recent window. */
  synchronized Shares add(SubtaskSample sample) {
    Point now = Point.of(sample);
    Deque<Point> earlier = points.computeIfAbsent(sample.id(), id -> new ArrayDeque<>());
    Point base = base(earlier, now.ageNanos());
    // What is older than the base will never be a base again.
    while (!earlier.isEmpty() && earlier.peekFirst() != base) {
      earlier.pollFirst();
    }
    earlier.addLast(now);
    return shares(base == null ? Point.DEPLOYED : base, now);
  }

  private static Point base(Deque<Point> earlier, long nowAge) {
    Point newestOldEnough = null;
    for (Iterator<Point> it = earlier.descendingIterator(); it.hasNext(); ) {
      Point p = it.next();
      if (nowAge - p.ageNanos() >= WINDOW_NANOS) {
        newestOldEnough = p;
        break;
      }
    }
    if (newestOldEnough != null) {
      return newestOldEnough;
    }
    Point oldest = earlier.peekFirst();
    return oldest != null && nowAge - oldest.ageNanos() >= MIN_WINDOW_NANOS ? oldest : null;
  }

  static Shares shares(Point from, Point to) {
    long elapsed = to.ageNanos() - from.ageNanos();
    if (elapsed <= 0) {
      return Shares.UNKNOWN;
    }
    double idle = clamp((double) (to.idleNanos() - from.idleNanos()) / elapsed);
    double backPressured =
        clamp((double) (to.backPressuredNanos() - from.backPressuredNanos()) / elapsed);
    double seconds = elapsed / 1e9;
    return new Shares(
        idle,
        backPressured,
        clamp(1 - idle - backPressured),
        (to.recordsIn() - from.recordsIn()) / seconds,
        (to.recordsOut() - from.recordsOut()) / seconds,
        (to.bytesIn() - from.bytesIn()) / seconds,
        (to.bytesOut() - from.bytesOut()) / seconds);
  }

  private static double clamp(double share) {
    return Math.min(1, Math.max(0, share));
  }

  /** Forgets every subtask but {@code current}: those of earlier attempts. */
  synchronized void retain(Collection<ExecutionAttemptId> current) {
    points.keySet().retainAll(current);
  }
}

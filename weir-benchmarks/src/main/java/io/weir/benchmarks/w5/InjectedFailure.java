package io.weir.benchmarks.w5;

import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * W5's one injected failure and the moment the job got going again. Static, because a child JVM
 * runs the whole job, every attempt of every subtask, in-process; engine-neutral, so the Weir and
 * Flink functions inject the failure the same way.
 *
 * <p>Each instance of the keyed function takes a {@link Probe} when it is opened. A probe of an
 * instance opened before the failure counts its records into a shared total, in steps of {@value
 * #STEP} so that the subtasks do not contend on every record, and the first probe to see the total
 * reach {@link #arm armed} threshold throws (once per JVM). A probe of an instance opened after the
 * failure (a restored attempt) stamps the time of its first record; the earliest stamp ends the
 * recovery.
 */
public final class InjectedFailure {
  /** Records a subtask processes between two additions to the shared total. */
  static final int STEP = 1024;

  private static final AtomicLong PROCESSED = new AtomicLong();
  private static final AtomicBoolean THROWN = new AtomicBoolean();
  private static final AtomicLong FIRST_AFTER_RESTORE_NANOS = new AtomicLong();
  private static volatile long failAfter = Long.MAX_VALUE;
  private static volatile long failedAtNanos;
  private static volatile long failedAfterRecords;

  private InjectedFailure() {}

  /** Fails the job once, when {@code records} records have been processed; call before the job. */
  public static void arm(long records) {
    failAfter = records;
  }

  /** A probe for a function instance being opened now. */
  public static Probe probe() {
    return new Probe(THROWN.get());
  }

  /** Whether the failure was injected. */
  public static boolean happened() {
    return THROWN.get();
  }

  /** Records processed (to within {@value #STEP} per subtask) when the failure was thrown. */
  public static long failedAfterRecords() {
    return failedAfterRecords;
  }

  /**
   * Milliseconds from the failure to the first record processed by an instance opened after it; -1
   * if there was none.
   */
  public static double recoveryMillis() {
    long first = FIRST_AFTER_RESTORE_NANOS.get();
    return first == 0 || !happened() ? -1 : (first - failedAtNanos) / 1e6;
  }

  /** Thrown by the keyed function once, to fail its task. */
  public static final class Failure extends RuntimeException {
    private static final long serialVersionUID = 1L;

    Failure(long records) {
      super("W5: the injected task failure, after " + records + " records");
    }
  }

  /** One function instance's view; not thread-safe, as a function instance is not. */
  public static final class Probe {
    private final boolean restored;
    private long unreported;
    private boolean stamped;

    private Probe(boolean restored) {
      this.restored = restored;
    }

    /**
     * Call before processing each record.
     *
     * @throws Failure once per JVM, when the records processed reach the armed threshold
     */
    public void beforeRecord() {
      if (restored) {
        if (!stamped) {
          stamped = true;
          FIRST_AFTER_RESTORE_NANOS.compareAndSet(0, System.nanoTime());
        }
        return;
      }
      if (++unreported < STEP) {
        return;
      }
      long total = PROCESSED.addAndGet(unreported);
      unreported = 0;
      if (total >= failAfter && THROWN.compareAndSet(false, true)) {
        failedAfterRecords = total;
        failedAtNanos = System.nanoTime();
        throw new Failure(total);
      }
    }
  }
}

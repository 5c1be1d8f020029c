package io.weir.benchmarks.w7;

import java.time.Duration;
import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.LongSupplier;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.SingleWriterRecorder;

/**
 * One W7 run's latency measurement inside the benchmark JVM, shared by the job's source and sink
 * subtasks (Weir's embedded cluster and Flink's mini cluster run them in this JVM, so they reach it
 * through {@link #current()}, not through the job graph) and read by the main thread. No engine
 * type in it: both engines' jobs call the same code.
 *
 * <p>The window: the first record any source subtask {@linkplain #stamp stamps} starts the warm-up;
 * records stamped from {@code warmUp} after it until {@code warmUp + measured} are the measured
 * ones. A source counts every measured record it stamps ({@link #created()}); a sink subtask takes
 * {@code System.nanoTime()} at arrival minus the stamp of every measured record into its own HDR
 * histogram ({@link SinkRecorder}, one {@link SingleWriterRecorder} per sink subtask, so recording
 * needs no lock and the main thread can take the histograms at any time); {@link #figures} merges
 * them.
 *
 * <p>Threads: {@link #stamp} from the source subtasks' threads, each {@link SinkRecorder} from its
 * sink subtask's thread, everything else from the main thread.
 */
public final class LatencyMeasurement {
  /** HDR histograms keep 3 significant digits: a value is exact to 0.1 %. */
  static final int SIGNIFICANT_DIGITS = 3;

  /** How long after the window's end a record stamped inside it may still be on its way. */
  static final Duration GRACE = Duration.ofMillis(200);

  private static final long UNSET = Long.MIN_VALUE;
  private static final long POLL_MILLIS = 10;

  private static volatile LatencyMeasurement current;

  private final long warmUpNanos;
  private final long measuredNanos;
  private final LongSupplier clock;
  private final AtomicLong originNanos = new AtomicLong(UNSET);
  private final LongAdder created = new LongAdder();
  private final LongAdder recorded = new LongAdder();
  private final AtomicLong maxLagNanos = new AtomicLong();
  private final Queue<SingleWriterRecorder> recorders = new ConcurrentLinkedQueue<>();

  LatencyMeasurement(long warmUpNanos, long measuredNanos, LongSupplier clock) {
    if (warmUpNanos < 0 || measuredNanos <= 0) {
      throw new IllegalArgumentException(
          "W7 needs a warm-up of 0 or more and a measured span above 0, not "
              + warmUpNanos
              + " ns and "
              + measuredNanos
              + " ns");
    }
    this.warmUpNanos = warmUpNanos;
    this.measuredNanos = measuredNanos;
    this.clock = clock;
  }

  /** Starts a measurement on {@link System#nanoTime}, before the job is submitted. */
  public static LatencyMeasurement start(Duration warmUp, Duration measured) {
    LatencyMeasurement measurement =
        new LatencyMeasurement(warmUp.toNanos(), measured.toNanos(), System::nanoTime);
    current = measurement;
    return measurement;
  }

  /** The measurement the running job reports to. */
  public static LatencyMeasurement current() {
    LatencyMeasurement measurement = current;
    if (measurement == null) {
      throw new IllegalStateException(
          "No W7 latency measurement was started in this JVM: W7's job runs only from"
              + " WeirLatency or FlinkLatency, which start one before they submit it.");
    }
    return measurement;
  }

  /**
   * A source subtask emits a record now: returns its creation stamp ({@code clock} now) and counts
   * it if it is inside the measured window.
   *
   * @param lagNanos how far behind its {@link PacingSchedule} the record goes out
   */
  public long stamp(long lagNanos) {
    long now = clock.getAsLong();
    long origin = originNanos.get();
    if (origin == UNSET) {
      originNanos.compareAndSet(UNSET, now);
      origin = originNanos.get();
    }
    if (measured(now, origin)) {
      created.increment();
      if (lagNanos > maxLagNanos.get()) {
        maxLagNanos.accumulateAndGet(lagNanos, Math::max);
      }
    }
    return now;
  }

  private boolean measured(long stamp, long origin) {
    long since = stamp - origin;
    return since >= warmUpNanos && since < warmUpNanos + measuredNanos;
  }

  /** A recorder for one sink subtask (call once per subtask). */
  public SinkRecorder newSinkRecorder() {
    SingleWriterRecorder recorder = new SingleWriterRecorder(SIGNIFICANT_DIGITS);
    recorders.add(recorder);
    return new SinkRecorder(recorder);
  }

  /** One sink subtask's side: its own histogram. Called from that subtask's thread only. */
  public final class SinkRecorder {
    private final SingleWriterRecorder recorder;

    private SinkRecorder(SingleWriterRecorder recorder) {
      this.recorder = recorder;
    }

    /** A record stamped {@code createdNanos} reached the sink now. */
    public void record(long createdNanos) {
      long origin = originNanos.get();
      if (origin != UNSET && measured(createdNanos, origin)) {
        // One JVM, one monotonic clock: never negative, but a histogram refuses a value below 0.
        recorder.recordValue(Math.max(0, clock.getAsLong() - createdNanos));
        recorded.increment();
      }
    }
  }

  /** Measured records the sources stamped so far. */
  long created() {
    return created.sum();
  }

  /** Measured records the sinks recorded so far. */
  long recorded() {
    return recorded.sum();
  }

  /**
   * Waits until the measured window is over and every record stamped in it reached a sink, or
   * {@code drainTimeout} after the window (then {@link Figures#missing} counts the rest).
   *
   * @param job the job's end: fails with the job's failure, or if it ended before the window did
   * @param startTimeout how long the first record may take to come after submission
   */
  public void awaitMeasured(CompletableFuture<?> job, Duration startTimeout, Duration drainTimeout)
      throws InterruptedException, TimeoutException {
    long startDeadline = clock.getAsLong() + startTimeout.toNanos();
    while (originNanos.get() == UNSET) {
      checkRunning(job, "emitted a first record");
      if (clock.getAsLong() > startDeadline) {
        throw new TimeoutException(
            "W7: no source subtask emitted a record within " + startTimeout + " of submission.");
      }
      Thread.sleep(POLL_MILLIS);
    }
    long windowEnd = originNanos.get() + warmUpNanos + measuredNanos + GRACE.toNanos();
    while (clock.getAsLong() < windowEnd) {
      checkRunning(job, "ran for its warm-up and measured span");
      Thread.sleep(POLL_MILLIS);
    }
    long drainDeadline = windowEnd + drainTimeout.toNanos();
    while (recorded() < created() && clock.getAsLong() < drainDeadline) {
      checkRunning(job, "delivered its measured records");
      Thread.sleep(POLL_MILLIS);
    }
  }

  private static void checkRunning(CompletableFuture<?> job, String what)
      throws InterruptedException {
    if (!job.isDone()) {
      return;
    }
    try {
      job.get();
    } catch (ExecutionException e) {
      throw new IllegalStateException("The W7 job failed before it " + what + ".", e.getCause());
    }
    throw new IllegalStateException("The W7 job ended before it " + what + ".");
  }

  /**
   * The merged figures of every sink subtask, taken once: each recorder hands over what it recorded
   * since the last call ({@link SingleWriterRecorder#getIntervalHistogram()}).
   */
  public Figures figures() {
    Histogram merged = new Histogram(SIGNIFICANT_DIGITS);
    for (SingleWriterRecorder recorder : recorders) {
      merged.add(recorder.getIntervalHistogram());
    }
    return new Figures(measuredNanos, created(), merged, maxLagNanos.get());
  }

  /**
   * What one run measured.
   *
   * @param measuredNanos the measured window's length
   * @param created measured records the sources stamped
   * @param latencyNanos latency of each measured record that reached a sink, both sinks merged
   * @param maxLagNanos the furthest behind its schedule any source subtask emitted a measured
   *     record
   */
  public record Figures(
      long measuredNanos, long created, Histogram latencyNanos, long maxLagNanos) {
    /** Measured records that reached a sink. */
    public long recorded() {
      return latencyNanos.getTotalCount();
    }

    /** Measured records stamped but not recorded by the time the main stopped waiting. */
    public long missing() {
      return created - recorded();
    }

    /** The latency at {@code percentile} (0-100) in milliseconds; NaN when nothing was recorded. */
    public double percentileMs(double percentile) {
      return recorded() == 0 ? Double.NaN : latencyNanos.getValueAtPercentile(percentile) / 1e6;
    }

    /** The highest latency recorded in milliseconds; NaN when nothing was recorded. */
    public double maxMs() {
      return recorded() == 0 ? Double.NaN : latencyNanos.getMaxValue() / 1e6;
    }
  }
}

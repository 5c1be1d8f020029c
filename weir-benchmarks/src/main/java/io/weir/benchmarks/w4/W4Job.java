package io.weir.benchmarks.w4;

import io.weir.benchmarks.Engine;
import io.weir.benchmarks.Result;
import io.weir.benchmarks.Workloads;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * What the W4 backpressure mains share: the configurations, the sink's pace, the run's length and
 * the {@code RESULT} line with its checkpoint figures.
 *
 * <p>The job is W1's (a key per record, a {@code ValueState<Long>} count per key, {@code (key,
 * count)} out) on an unbounded sequence, parallelism 2, a checkpoint every second into a fresh
 * local directory with a 10 min timeout (so aligned checkpoints complete however slow), and a sink
 * that sleeps 1 ms every {@value #SLEEP_EVERY} records of its subtask. After {@link #runFor()} the
 * main reads the records that reached the sink and the engine's checkpoint statistics, then cancels
 * the job.
 */
public final class W4Job {
  /** {@code aligned}; {@code unaligned}; unaligned with a 100 ms aligned-checkpoint timeout. */
  public static final List<String> CONFIGS = List.of("aligned", "unaligned", "timeout100");

  /** The sink sleeps 1 ms each time its subtask's count reaches a multiple of this. */
  public static final int SLEEP_EVERY = 100;

  public static final Duration CHECKPOINT_INTERVAL = Duration.ofSeconds(1);
  public static final Duration CHECKPOINT_TIMEOUT = Duration.ofMinutes(10);
  public static final Duration ALIGNED_CHECKPOINT_TIMEOUT = Duration.ofMillis(100);

  /**
   * By hand only: {@code -Dweir.bench.w4.seconds=5} shortens a run (a smoke test); the runner never
   * sets it.
   */
  static final String SECONDS_PROPERTY = "weir.bench.w4.seconds";

  private W4Job() {}

  /** W1's key: {@code ((i * 0x9E3779B97F4A7C15L) >>> 47) % 100_000}. */
  public static long key(long i) {
    return ((i * 0x9E3779B97F4A7C15L) >>> 47) % 100_000;
  }

  /** How long a run lasts before it is cancelled: 30 s unless overridden by hand. */
  public static Duration runFor() {
    String seconds = System.getProperty(SECONDS_PROPERTY);
    return seconds == null ? Workloads.W4.runFor() : Duration.ofSeconds(Long.parseLong(seconds));
  }

  /**
   * Waits until {@link #runFor()} after {@code startNanos}; fails if the job ended before (the
   * sequence was too short, or the job failed).
   */
  public static void awaitRunFor(long startNanos, CompletableFuture<?> jobResult)
      throws InterruptedException {
    long remaining = startNanos + runFor().toNanos() - System.nanoTime();
    if (remaining <= 0) {
      return;
    }
    try {
      jobResult.get(remaining, TimeUnit.NANOSECONDS);
    } catch (TimeoutException e) {
      return; // still running, as it should be
    } catch (ExecutionException e) {
      throw new IllegalStateException("The W4 job failed before " + runFor() + ".", e.getCause());
    }
    throw new IllegalStateException(
        "The W4 job ended before "
            + runFor()
            + ": give it more records (the default is an unbounded sequence).");
  }

  /**
   * The {@code RESULT}: records that reached the sink over {@code nanos}, then the checkpoint
   * figures of the completed checkpoints ({@code n/a} where none completed).
   *
   * @param endToEndMillis end-to-end duration of each completed checkpoint
   * @param alignMaxMillis the longest alignment of any subtask in any completed checkpoint
   * @param inflightMaxBytes the most in-flight data one completed checkpoint persisted
   */
  public static Result result(
      Engine engine,
      String config,
      long sinkRecords,
      long nanos,
      List<Long> endToEndMillis,
      long alignMaxMillis,
      long inflightMaxBytes) {
    Result result = Result.of(engine, "W4", config, sinkRecords, nanos);
    List<Long> sorted = new ArrayList<>(endToEndMillis);
    Collections.sort(sorted);
    boolean any = !sorted.isEmpty();
    return result
        .with("cpP50", any ? formatMillis(median(sorted)) : "n/a")
        .with("cpMax", any ? Long.toString(sorted.get(sorted.size() - 1)) : "n/a")
        .with("alignMax", any ? Long.toString(alignMaxMillis) : "n/a")
        .with("inflightMax", any ? Long.toString(inflightMaxBytes) : "n/a")
        .with("completed", Integer.toString(sorted.size()));
  }

  private static double median(List<Long> sorted) {
    int mid = sorted.size() / 2;
    return sorted.size() % 2 == 1 ? sorted.get(mid) : (sorted.get(mid - 1) + sorted.get(mid)) / 2.0;
  }

  private static String formatMillis(double millis) {
    return millis == Math.rint(millis)
        ? String.format(Locale.ROOT, "%.0f", millis)
        : String.format(Locale.ROOT, "%.1f", millis);
  }
}

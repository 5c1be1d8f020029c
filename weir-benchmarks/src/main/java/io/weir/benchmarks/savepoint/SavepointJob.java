package io.weir.benchmarks.savepoint;

import io.weir.benchmarks.Engine;
import io.weir.benchmarks.Result;
import io.weir.benchmarks.StateBackendSetting;
import io.weir.benchmarks.w3.W3Job;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;
import java.util.stream.Stream;

/**
 * What the SAVEPOINT mains share: W3's state (2 000 000 keys × a 100-byte {@code ValueState}
 * written by {@code N} records, 224 MB on the heap), then a savepoint of it and a restore from it.
 *
 * <p>The job, the same on both engines: {@code fromSequence(1, Long.MAX_VALUE)} → a chained {@link
 * #feed} flat map that passes subtask {@code s}'s first {@code N/2} records on as record numbers
 * {@code s·N/2 + 1 … (s+1)·N/2} (the numbers W3's {@code fromSequence(1, N)} gives each subtask)
 * and drops every later one after a park of about 50 µs, so the job keeps running, nearly idle,
 * after its {@code N} records → {@code keyBy(i % 2 000 000)} → W3's keyed function (write the
 * 100-byte value blind, emit the key), which counts records and stamps its first one ({@link
 * Progress}) → discarding sink; parallelism 2, checkpoint interval one hour (savepoints need
 * checkpointing on in Weir; no periodic checkpoint runs meanwhile).
 *
 * <p>One run: submit, wait until the keyed function has processed {@code N} records ({@code
 * loadMs}, the main figure as records/s), trigger a canonical savepoint and time it until its path
 * is returned ({@code takeMs}, {@code savepointBytes} = the files in its directory), cancel; submit
 * the same job with {@code execution.state-recovery.path} set to the savepoint and time until every
 * keyed subtask processed its first record ({@code restoreMs}: all state loaded); cancel; submit it
 * once more without state and take the same figure ({@code startMs}: what the restore costs besides
 * loading the state, the local cluster's start and deployment, in a JVM as warm); cancel.
 */
public final class SavepointJob {
  /** {@code heap}, and {@code rocksdb} with incremental checkpoints. */
  public static final List<String> CONFIGS = List.of("heap", "rocksdb");

  public static final String WORKLOAD = "SAVEPOINT";
  public static final int PARALLELISM = 2;
  public static final long DEFAULT_RECORDS = W3Job.DEFAULT_RECORDS;
  public static final Duration WAIT = Duration.ofMinutes(10);

  private SavepointJob() {}

  /** The state backend of a configuration. */
  public static StateBackendSetting backend(String config) {
    return switch (config) {
      case "heap" -> StateBackendSetting.HEAP;
      case "rocksdb" -> StateBackendSetting.ROCKSDB_INCREMENTAL;
      default -> throw new IllegalArgumentException("Unknown configuration " + config);
    };
  }

  /** Checkpointing on (Weir's savepoints need it), with no periodic checkpoint during a run. */
  public static Map<String, String> checkpointSettings(String checkpointDir) {
    return Map.of(
        "execution.checkpointing.interval", "1h", "execution.checkpointing.dir", checkpointDir);
  }

  /**
   * The feed's rule for subtask {@code subtask}'s {@code seen}-th record (from 0): the record
   * number to pass on, or -1 to drop it after a short park.
   */
  public static long feed(int subtask, long seen, long records) {
    long share = records / PARALLELISM + (subtask < records % PARALLELISM ? 1 : 0);
    if (seen < share) {
      return subtask * (records / PARALLELISM)
          + Math.min(subtask, records % PARALLELISM)
          + seen
          + 1;
    }
    LockSupport.parkNanos(1); // the timer slack makes it ~50 µs: the job idles
    return -1;
  }

  /**
   * What the keyed functions of the running job saw, read by the main in the same JVM (the Weir
   * embedded cluster and the Flink mini cluster run the tasks in it).
   */
  public static final class Progress {
    private static final LongAdder PROCESSED = new LongAdder();
    private static final Map<Integer, Long> FIRST_RECORD_NANOS = new ConcurrentHashMap<>();

    private Progress() {}

    /** Before each submission. */
    public static void reset() {
      PROCESSED.reset();
      FIRST_RECORD_NANOS.clear();
    }

    /** A keyed subtask processed a record; {@code first} for its first one. */
    public static void processed(int subtask, boolean first) {
      if (first) {
        FIRST_RECORD_NANOS.putIfAbsent(subtask, System.nanoTime());
      }
      PROCESSED.increment();
    }

    /** Waits until {@code records} were processed; fails with the job if it ends first. */
    public static void awaitProcessed(long records, CompletableFuture<?> job) throws Exception {
      await(() -> PROCESSED.sum() >= records, job, "processed " + records + " records");
    }

    /** Waits until every keyed subtask processed a record; returns when the last one did. */
    public static long awaitFirstRecords(CompletableFuture<?> job) throws Exception {
      await(
          () -> FIRST_RECORD_NANOS.size() == PARALLELISM,
          job,
          "processed a first record in every keyed subtask");
      return FIRST_RECORD_NANOS.values().stream().mapToLong(Long::longValue).max().orElseThrow();
    }

    private static void await(
        java.util.function.BooleanSupplier done, CompletableFuture<?> job, String what)
        throws Exception {
      long deadline = System.nanoTime() + WAIT.toNanos();
      while (!done.getAsBoolean()) {
        if (job.isDone()) {
          job.get(); // its failure
          throw new IllegalStateException("The job ended before it " + what);
        }
        if (System.nanoTime() > deadline) {
          throw new TimeoutException("The job has not " + what + " after " + WAIT);
        }
        Thread.sleep(1);
      }
    }
  }

  /** The bytes of every file below {@code dir}. */
  public static long sizeOf(Path dir) throws IOException {
    try (Stream<Path> files = Files.walk(dir)) {
      long bytes = 0;
      for (Path file : files.filter(Files::isRegularFile).toList()) {
        bytes += Files.size(file);
      }
      return bytes;
    }
  }

  /**
   * The figures of one run.
   *
   * @param loadNanos from submission until the keyed function processed {@code N} records
   * @param startNanos from a stateless submission after the restore until every keyed subtask
   *     processed a record
   * @param takeNanos from the savepoint's trigger until its path was returned
   * @param savepointBytes the files of the savepoint's directory
   * @param restoreNanos from the submission from the savepoint until every keyed subtask processed
   *     a record
   */
  public record Run(
      long loadNanos, long startNanos, long takeNanos, long savepointBytes, long restoreNanos) {}

  /** The {@code RESULT}: records/s of the load, then the savepoint's figures. */
  public static Result result(Engine engine, String config, long records, Run run) {
    return Result.of(engine, WORKLOAD, config, records, run.loadNanos())
        .with("takeMs", Long.toString(run.takeNanos() / 1_000_000))
        .with("savepointBytes", Long.toString(run.savepointBytes()))
        .with("restoreMs", Long.toString(run.restoreNanos() / 1_000_000))
        .with("startMs", Long.toString(run.startNanos() / 1_000_000));
  }
}

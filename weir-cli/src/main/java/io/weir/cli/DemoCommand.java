package io.weir.cli;

import io.weir.api.JobExecutionResult;
import io.weir.api.RestartStrategy;
import io.weir.api.StreamEnvironment;
import io.weir.api.functions.CheckpointListener;
import io.weir.api.functions.CheckpointedFunction;
import io.weir.api.functions.RichMapFunction;
import io.weir.api.functions.SinkFunction;
import io.weir.api.state.FunctionInitializationContext;
import io.weir.api.state.FunctionSnapshotContext;
import io.weir.api.tuple.Tuple2;
import io.weir.examples.KeyedRunningSum;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Stream;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * Runs the keyed running-sum example in local execution (the in-process engine) with checkpoints,
 * injects one task failure after a checkpoint completed, lets Weir restore and replay, and checks
 * every key's final sum against the arithmetic answer.
 */
@Command(
    name = "demo",
    mixinStandardHelpOptions = true,
    description =
        "Run a stateful job with checkpoints, inject a task failure, recover, and verify the"
            + " result.")
final class DemoCommand implements Callable<Integer> {

  @Option(
      names = "--records",
      defaultValue = "20000000",
      description = "Numbers to sum (default: ${DEFAULT-VALUE}).")
  long records;

  @Option(
      names = "--keys",
      defaultValue = "1000",
      description = "Number of keys (default: ${DEFAULT-VALUE}).")
  long keys;

  @Option(
      names = "--parallelism",
      defaultValue = "2",
      description = "Parallelism (default: ${DEFAULT-VALUE}).")
  int parallelism;

  @Option(
      names = "--checkpoint-interval",
      defaultValue = "1s",
      description = "Checkpoint interval (default: ${DEFAULT-VALUE}).")
  String checkpointInterval;

  @Option(names = "--no-failure", description = "Do not inject a failure.")
  boolean noFailure;

  /** The last sum seen per key; the sink runs in this JVM (local execution). */
  static final Map<Long, Long> LAST_SUM = new ConcurrentHashMap<>();

  static final AtomicBoolean FAILURE_PENDING = new AtomicBoolean();
  static volatile PrintStream log = System.out;

  /**
   * Passes numbers through, reports checkpoints and restores, and fails once, on subtask 0, a
   * little after the first checkpoint it saw complete.
   */
  static final class Observer extends RichMapFunction<Long, Long>
      implements CheckpointedFunction, CheckpointListener {
    private static final long serialVersionUID = 1L;
    private transient long failAfter;

    @Override
    public void open(io.weir.api.functions.OpenContext openContext) {
      failAfter = -1; // transient fields are not initialized in the subtask's copy
    }

    @Override
    public void initializeState(FunctionInitializationContext context) {
      context
          .getRestoredCheckpointId()
          .ifPresent(
              id -> {
                if (getRuntimeContext().getIndexOfThisSubtask() == 0) {
                  say(
                      "  restored    from checkpoint %d (attempt %d); sources replay from there",
                      id, getRuntimeContext().getAttemptNumber());
                }
              });
    }

    @Override
    public void snapshotState(FunctionSnapshotContext context) {}

    @Override
    public void notifyCheckpointComplete(long checkpointId) {
      if (getRuntimeContext().getIndexOfThisSubtask() == 0) {
        say("  checkpoint  %d completed", checkpointId);
        if (FAILURE_PENDING.get() && failAfter < 0) {
          failAfter = 100_000;
        }
      }
    }

    @Override
    public Long map(Long value) {
      if (failAfter > 0 && --failAfter == 0 && FAILURE_PENDING.compareAndSet(true, false)) {
        say("  failure     injected into subtask 1 at record %,d", value);
        throw new IllegalStateException("Injected failure (weir demo)");
      }
      return value;
    }
  }

  static void say(String format, Object... args) {
    log.printf(Locale.ROOT, format + "%n", args);
  }

  @Override
  public Integer call() throws Exception {
    PrintStream out = System.out;
    log = out;
    if (records < 1 || keys < 1 || parallelism < 1) {
      out.println("--records, --keys and --parallelism must be at least 1");
      return 2;
    }
    LAST_SUM.clear();
    FAILURE_PENDING.set(!noFailure);
    Path checkpoints = Files.createTempDirectory("weir-demo-checkpoints");
    try {
      StreamEnvironment env = StreamEnvironment.create();
      env.setParallelism(parallelism);
      env.enableCheckpointing(io.weir.api.config.TimeUtils.parseDuration(checkpointInterval));
      env.getCheckpointConfig().setCheckpointStorage(checkpoints.toUri().toString());
      env.setRestartStrategy(RestartStrategy.fixedDelay(3, Duration.ZERO));
      KeyedRunningSum.sums(env.fromSequence(1, records).map(new Observer()).name("Observer"), keys)
          .addSink(
              (SinkFunction<Tuple2<Long, Long>>) (value, ctx) -> LAST_SUM.put(value.f0, value.f1))
          .name("Remember Last Sum");

      say(
          "Weir demo: keyed running sum of 1..%,d over %,d keys, parallelism %d, checkpoints"
              + " every %s to %s",
          records, keys, parallelism, checkpointInterval, checkpoints);
      long start = System.nanoTime();
      JobExecutionResult result = env.execute("weir-demo");
      double seconds = (System.nanoTime() - start) / 1e9;

      long wrong = 0;
      for (long key = 0; key < keys; key++) {
        long expected = expectedSum(key);
        Long actual = LAST_SUM.get(key);
        if (expected != 0 && (actual == null || actual != expected)) {
          wrong++;
          if (wrong <= 5) {
            say("  key %d: expected %d but got %s", key, expected, actual);
          }
        }
      }
      say("  job id      %s", result.getJobID());
      say("  restarts    %d", result.metrics().get("job.restarts"));
      say("  checkpoints %d triggered", result.metrics().get("job.checkpoints.lastId"));
      say("  records     %,d", records);
      say("  time        %.2f s", seconds);
      say("  throughput  %,.0f records/s", records / seconds);
      say(
          "  keys        %,d checked, %s",
          LAST_SUM.size(), wrong == 0 ? "every final sum is exact" : wrong + " WRONG");
      return wrong == 0 ? 0 : 1;
    } finally {
      deleteRecursively(checkpoints);
    }
  }

  /** The sum of all n in 1..records with n % keys == key. */
  private long expectedSum(long key) {
    long first = key == 0 ? keys : key;
    if (first > records) {
      return 0;
    }
    long count = (records - first) / keys + 1;
    long last = first + (count - 1) * keys;
    return count * (first + last) / 2;
  }

  private static void deleteRecursively(Path dir) throws IOException {
    if (!Files.exists(dir)) {
      return;
    }
    try (Stream<Path> paths = Files.walk(dir)) {
      for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    }
  }
}

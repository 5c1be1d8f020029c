package io.weir.cli;

import io.weir.api.RestartStrategy;
import io.weir.api.StreamEnvironment;
import io.weir.api.functions.CheckpointListener;
import io.weir.api.functions.CheckpointedFunction;
import io.weir.api.functions.RichMapFunction;
import io.weir.api.functions.SinkFunction;
import io.weir.api.state.FunctionInitializationContext;
import io.weir.api.state.FunctionSnapshotContext;
import io.weir.api.tuple.Tuple2;
import io.weir.cluster.ClusterOptions;
import io.weir.cluster.LocalSessionCluster;
import io.weir.cluster.client.ClusterClient;
import io.weir.cluster.rest.messages.JobDetails;
import io.weir.cluster.rpc.HostPort;
import io.weir.examples.KeyedRunningSum;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.jar.Attributes;
import java.util.jar.JarOutputStream;
import java.util.jar.Manifest;
import java.util.stream.Stream;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * Runs the keyed running-sum example on the local session cluster of {@code weir run} (a JobManager
 * and a TaskManager in this process, the REST API and the web dashboard on 127.0.0.1) with
 * checkpoints, injects one task failure after a checkpoint completed, lets Weir restore and replay,
 * and checks every key's final sum against the arithmetic answer. Then, when run interactively, it
 * keeps serving the dashboard until interrupted.
 *
 * <p>The job is submitted as {@code weir run} submits one: a jar uploaded to the JobManager and its
 * entry class run there. The jar holds only a manifest: the job class loader finds {@link Program}
 * and its functions through its parent, this command's class path, so the sink's {@link #LAST_SUM}
 * is the one this command checks.
 */
@Command(
    name = "demo",
    mixinStandardHelpOptions = true,
    description = {
      "Run a stateful job with checkpoints on a local session cluster, inject a task failure,"
          + " recover, and verify the result. It prints the web dashboard's URL (the REST port) and,"
          + " when run in an interactive terminal, keeps serving it after the job until Ctrl+C;"
          + " without a terminal (CI, a pipe) or with --no-wait it exits once the job is verified."
    })
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

  @Option(
      names = "--no-wait",
      description =
          "Exit once the job is verified, even in an interactive terminal (without one the demo"
              + " never waits).")
  boolean noWait;

  @picocli.CommandLine.ParentCommand WeirCli parent;

  @Option(
      names = "--rest-port",
      paramLabel = "PORT",
      description = "The REST and dashboard port on 127.0.0.1; default any free one.")
  Integer restPort;

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

  /**
   * The job's program, run by the JobManager as a jar's entry class. Arguments: records, keys,
   * parallelism, checkpoint interval, checkpoint storage URI.
   */
  public static final class Program {
    private Program() {}

    public static void main(String[] args) throws Exception {
      long records = Long.parseLong(args[0]);
      long keys = Long.parseLong(args[1]);
      StreamEnvironment env = StreamEnvironment.create();
      env.setParallelism(Integer.parseInt(args[2]));
      env.enableCheckpointing(io.weir.api.config.TimeUtils.parseDuration(args[3]));
      env.getCheckpointConfig().setCheckpointStorage(args[4]);
      env.setRestartStrategy(RestartStrategy.fixedDelay(3, Duration.ZERO));
      KeyedRunningSum.sums(
              env.fromSequence(1, records)
                  .uid("numbers")
                  .map(new Observer())
                  .name("Observer")
                  .uid("observer"),
              keys)
          .addSink(
              (SinkFunction<Tuple2<Long, Long>>) (value, ctx) -> LAST_SUM.put(value.f0, value.f1))
          .name("Remember Last Sum")
          .uid("remember-last-sum");
      env.execute("weir-demo");
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
    Path work = Files.createTempDirectory("weir-demo");
    // The engine's log (warnings the demo causes on purpose among it) goes to a file that outlives
    // the run; --verbose keeps it on the console.
    Path logFile = work.resolveSibling(work.getFileName() + ".log");
    try (DemoLog engineLog = parent != null && parent.verbose ? null : DemoLog.to(logFile)) {
      return run(out, work, engineLog == null ? null : logFile);
    }
  }

  private int run(PrintStream out, Path work, Path logFile) throws Exception {
    Map<String, String> settings = new LinkedHashMap<>();
    if (restPort != null) {
      settings.put(ClusterOptions.REST_PORT.key(), String.valueOf(restPort));
    }
    try (LocalSessionCluster cluster = new LocalSessionCluster(settings)) {
      String address = "127.0.0.1:" + cluster.restPort();
      ClusterClient client = new ClusterClient(HostPort.parse(address, "address"), null);
      Path checkpoints = work.resolve("checkpoints");
      say(
          "Weir demo: keyed running sum of 1..%,d over %,d keys, parallelism %d, checkpoints"
              + " every %s to %s",
          records, keys, parallelism, checkpointInterval, checkpoints);
      say("  dashboard   http://%s/ (the REST API on the same port)", address);
      if (logFile != null) {
        say("  log         %s (the engine's; --verbose shows it here)", logFile);
      }
      long start = System.nanoTime();
      String jobId =
          client.run(
              client.upload(manifestOnlyJar(work.resolve("weir-demo.jar"))),
              Program.class.getName(),
              List.of(
                  Long.toString(records),
                  Long.toString(keys),
                  Integer.toString(parallelism),
                  checkpointInterval,
                  checkpoints.toUri().toString()),
              null,
              Map.of());
      say("  job         http://%s/#/jobs/%s/checkpoints", address, jobId);
      JobDetails job = awaitEnd(client, jobId);
      double seconds = (System.nanoTime() - start) / 1e9;
      if (!job.state().equals("FINISHED")) {
        say("  job %s %s: %s", jobId, job.state(), job.failure());
        return 1;
      }

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
      Map<String, Long> metrics = job.metrics() == null ? Map.of() : job.metrics();
      say("  job id      %s", jobId);
      say("  restarts    %d", metrics.get("job.restarts"));
      say("  checkpoints %d triggered", metrics.get("job.checkpoints.lastId"));
      say("  records     %,d", records);
      say("  time        %.2f s", seconds);
      say("  throughput  %,.0f records/s", records / seconds);
      say(
          "  keys        %,d checked, %s",
          LAST_SUM.size(), wrong == 0 ? "every final sum is exact" : wrong + " WRONG");
      if (!noWait && System.console() != null) {
        say(
            "The dashboard stays at http://%s/#/jobs/%s/checkpoints: press Ctrl+C to stop.",
            address, jobId);
        Runtime.getRuntime()
            .addShutdownHook(
                new Thread(
                    () -> {
                      try {
                        deleteRecursively(work);
                      } catch (IOException e) {
                        // The temporary directory stays; the process ends either way.
                      }
                    },
                    "weir-demo-cleanup"));
        new CountDownLatch(1).await();
      }
      return wrong == 0 ? 0 : 1;
    } finally {
      deleteRecursively(work);
    }
  }

  /** Waits for the job to end; its details then. */
  private static JobDetails awaitEnd(ClusterClient client, String jobId) throws Exception {
    while (true) {
      JobDetails job = client.job(jobId);
      switch (job.state()) {
        case "FINISHED", "CANCELED", "FAILED" -> {
          return job;
        }
        default -> Thread.sleep(100);
      }
    }
  }

  /**
   * A jar of a manifest alone: the JobManager's and TaskManager's job class loaders find the demo's
   * classes through their parent, this process's class path.
   */
  private static Path manifestOnlyJar(Path target) throws IOException {
    Manifest manifest = new Manifest();
    manifest.getMainAttributes().put(Attributes.Name.MANIFEST_VERSION, "1.0");
    manifest.getMainAttributes().put(Attributes.Name.MAIN_CLASS, Program.class.getName());
    try (OutputStream file = Files.newOutputStream(target);
        JarOutputStream jar = new JarOutputStream(file, manifest)) {
      // The manifest is all.
    }
    return target;
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

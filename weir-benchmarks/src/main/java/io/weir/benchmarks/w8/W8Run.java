package io.weir.benchmarks.w8;

import io.weir.benchmarks.Engine;
import io.weir.benchmarks.Result;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;

/**
 * What the W8 mains of both engines share: the configurations, the settings, and the measurement on
 * a cluster of processes ({@link BenchCluster}), the same steps on Weir and on Flink.
 *
 * <ul>
 *   <li>{@code embedded}: W1 with a checkpoint every second on the engine's in-process cluster, in
 *       the benchmark JVM, timed around {@code execute()}.
 *   <li>{@code cluster}: the same job on one JobManager and two 1-slot TaskManager processes
 *       (parallelism 2: subtask i of every vertex on TaskManager i, so the keyed exchange crosses
 *       the network), timed from the submission (jar upload included) until the REST API shows the
 *       job ended; the processes are started before and are not timed.
 *   <li>{@code single-tm}: as {@code cluster}, but on one TaskManager process with two slots (and
 *       the two TaskManagers' heaps together): the same processes, submission and polling, with
 *       every channel inside one process. Set against {@code embedded} and {@code cluster} it
 *       splits what a cluster costs into what the processes cost and what the network costs.
 *   <li>{@code recovery}: as {@code cluster}, plus a spare 1-slot TaskManager started once the job
 *       runs and registered before the kill; after two completed checkpoints one of the two working
 *       TaskManagers is killed with SIGKILL. The job restarts (fixed delay, 0 ms) on the surviving
 *       and the spare TaskManager. {@code recoveryMs} = from the SIGKILL to the first record the
 *       keyed function processes in a restored attempt ({@link FirstRecordMarker}).
 *   <li>{@code embedded-warm}, {@code cluster-warm}: {@code embedded} and {@code cluster} timed on
 *       their second job: the same job runs once to its end, untimed, in the same JVM or on the
 *       same JobManager and TaskManagers, as the jobs after the first of a session cluster do. Set
 *       against the cold configurations they split what a run costs into the JVMs' warm-up (class
 *       loading, the JIT compiling Netty's and the engine's paths in every process, on the same
 *       cores as the job) and what stays once they are warm.
 * </ul>
 */
public final class W8Run {
  /** The configurations both mains accept. */
  public static final List<String> CONFIGS =
      List.of("embedded", "cluster", "single-tm", "recovery", "embedded-warm", "cluster-warm");

  private static final String WARM = "-warm";

  /** Records of a run: W1's. */
  public static final long DEFAULT_RECORDS = 20_000_000L;

  /** Heap per slot of a TaskManager JVM (two slots do the work the embedded run does in one). */
  private static final int TASK_MANAGER_HEAP_MB_PER_SLOT = 2048;

  /** Heap of the JobManager JVM. */
  static final String JOB_MANAGER_HEAP = "1g";

  /** The same failure detection on both engines. */
  static final Map<String, String> HEARTBEATS =
      Map.of("heartbeat.interval", "1000", "heartbeat.timeout", "5000");

  private static final Set<String> ENDED = Set.of("FINISHED", "FAILED", "CANCELED", "CANCELLED");
  private static final Duration POLL = Duration.ofMillis(50);

  /**
   * How often the end of a timed job is polled. The time comes from the job's {@code end-time}, not
   * from when a poll sees the end, so this only has to be rare enough that the client and the
   * JobManager's REST handler take next to no CPU from the job (at 50 ms they took about a tenth of
   * a core on W8's 2-core runner).
   */
  private static final Duration END_POLL = Duration.ofMillis(500);

  private static final Duration STEP_TIMEOUT = Duration.ofMinutes(3);

  private W8Run() {}

  /** The JVM heap of a TaskManager with {@code slots} slots, in MB: the same on both engines. */
  static int taskManagerHeapMb(int slots) {
    return TASK_MANAGER_HEAP_MB_PER_SLOT * slots;
  }

  /** Slots of each TaskManager: two for {@code single-tm}, one otherwise. */
  public static int slotsPerTaskManager(String config) {
    return config.equals("single-tm") ? 2 : 1;
  }

  /** Whether {@code config} is timed on a second job, after an untimed one in the same JVMs. */
  public static boolean warm(String config) {
    return config.endsWith(WARM);
  }

  /** Whether {@code config} runs in the benchmark JVM ({@code embedded}, cold or warm). */
  public static boolean embedded(String config) {
    return config.equals("embedded") || config.equals("embedded" + WARM);
  }

  /**
   * The job's settings, the same keys on both engines: a checkpoint every second into {@code
   * checkpoints}; no restart, except for {@code recovery}: fixed delay of 0 ms, up to 100 attempts
   * (a restart that lands on the killed TaskManager before it is declared lost counts as one more).
   */
  public static Map<String, String> jobSettings(String config, Path checkpoints) {
    return jobSettings(config.equals("recovery"), checkpoints);
  }

  /**
   * The job's settings: a checkpoint every second into {@code checkpoints}; with {@code restarts} a
   * fixed delay of 0 ms, up to 100 attempts, else no restart.
   */
  static Map<String, String> jobSettings(boolean restarts, Path checkpoints) {
    Map<String, String> settings = new LinkedHashMap<>();
    settings.put("execution.checkpointing.interval", "1s");
    settings.put("execution.checkpointing.dir", checkpoints.toUri().toString());
    if (restarts) {
      settings.put("restart-strategy.type", "fixed-delay");
      settings.put("restart-strategy.fixed-delay.attempts", "100");
      settings.put("restart-strategy.fixed-delay.delay", "0 ms");
    } else {
      settings.put("restart-strategy.type", "none");
    }
    return settings;
  }

  /**
   * Runs {@code cluster}, {@code single-tm} or {@code recovery} on {@code cluster}, which has its
   * JobManager running and no TaskManager yet.
   */
  static Result onCluster(
      Engine engine, String config, long records, BenchCluster cluster, Path scratch)
      throws Exception {
    boolean recovery = config.equals("recovery");
    JvmProcess victim = cluster.startTaskManager();
    if (!config.equals("single-tm")) {
      cluster.startTaskManager();
    }
    if (warm(config)) {
      Path warmUp = Files.createDirectories(scratch.resolve("warm-up-first-records"));
      String first = cluster.submit(records, warmUp.toString(), "");
      requireFinished(engine, "warm-up job", first, awaitEnd(cluster, first));
    }
    Path markers = Files.createDirectories(scratch.resolve("first-records"));

    Instant submitted = Instant.now();
    String job = cluster.submit(records, markers.toString(), "");
    Instant killedAt = null;
    long checkpointsBeforeKill = 0;
    if (recovery) {
      await(cluster, job, "RUNNING", () -> cluster.state(job).equals("RUNNING"));
      cluster.startTaskManager(); // the spare
      await(
          cluster, job, "two completed checkpoints", () -> cluster.completedCheckpoints(job) >= 2);
      checkpointsBeforeKill = cluster.completedCheckpoints(job);
      killedAt = Instant.now();
      victim.kill();
    }
    String state = awaitEnd(cluster, job);
    requireFinished(engine, "job", job, state);
    // Both clocks are this machine's: from the submission to the end the JobManager reports.
    long endMillis = cluster.endTimeMillis(job);
    if (endMillis < submitted.toEpochMilli()) {
      throw new IllegalStateException(
          "W8: the "
              + engine.id()
              + " job "
              + job
              + " reports end-time "
              + endMillis
              + ", before its submission at "
              + submitted.toEpochMilli());
    }
    long nanos = (endMillis - submitted.toEpochMilli()) * 1_000_000L;
    Result result =
        withStart(Result.of(engine, "W8", config, records, nanos), submitted, markers)
            .with("checkpoints", Long.toString(cluster.completedCheckpoints(job)))
            .with("clusterPeakRssKb", clusterPeakRssKb(cluster));
    if (!recovery) {
      return result;
    }
    long killMicros = FirstRecordMarker.epochMicros(killedAt);
    long killMillis = killedAt.toEpochMilli();
    long firstAfter =
        FirstRecordMarker.read(markers).stream()
            .filter(stamp -> stamp > killMicros)
            .min(Long::compare)
            .orElseThrow(
                () ->
                    new IllegalStateException(
                        "W8: no record was processed after the SIGKILL: the job ended before the"
                            + " kill took effect; run it with more records"));
    List<BenchCluster.Failure> failures = cluster.failures(job);
    // On standard error, for the runner's log: where the recovery spent its time.
    System.err.printf(
        Locale.ROOT,
        "W8 %s: SIGKILL at %s, first record after it +%.1f ms%n",
        engine.id(),
        killedAt,
        (firstAfter - killMicros) / 1e3);
    failures.forEach(
        f ->
            System.err.printf(
                Locale.ROOT,
                "W8 %s: failure +%d ms %s%n",
                engine.id(),
                f.epochMillis() - killMillis,
                f.what()));
    long detected =
        failures.stream()
            .mapToLong(BenchCluster.Failure::epochMillis)
            .filter(t -> t >= killMillis - 1)
            .min()
            .orElse(-1L);
    return result
        .with("recoveryMs", String.format(Locale.ROOT, "%.1f", (firstAfter - killMicros) / 1e3))
        .with("failedMs", detected < 0 ? "n/a" : Long.toString(detected - killMillis))
        .with("failures", Integer.toString(failures.size()))
        .with("cpBeforeKill", Long.toString(checkpointsBeforeKill));
  }

  /**
   * The peak RSS of the JobManager and every TaskManager summed, in kB ({@code n/a} if one cannot
   * be read): what the cluster's processes held besides the benchmark JVM, whose own figure the
   * runner takes. A killed TaskManager counts with its peak just before the SIGKILL.
   */
  static String clusterPeakRssKb(BenchCluster cluster) {
    long sum = 0;
    for (JvmProcess process : cluster.processes()) {
      OptionalLong kb = process.peakRssKb();
      if (kb.isEmpty()) {
        return "n/a";
      }
      sum += kb.getAsLong();
    }
    return Long.toString(sum);
  }

  /**
   * {@code result} with {@code startMs}: from the submission to the first record any keyed function
   * instance processed (deployment, plan, class loading, connections), from the stamps in {@code
   * markers}.
   */
  static Result withStart(Result result, Instant submitted, Path markers) throws IOException {
    long first =
        FirstRecordMarker.read(markers).stream()
            .min(Long::compare)
            .orElseThrow(
                () -> new IllegalStateException("W8: no first-record stamp in " + markers));
    return result.with(
        "startMs",
        String.format(
            Locale.ROOT, "%.0f", (first - FirstRecordMarker.epochMicros(submitted)) / 1e3));
  }

  /** A condition polled until it holds. */
  @FunctionalInterface
  interface Condition {
    boolean holds() throws Exception;
  }

  static void await(BenchCluster cluster, String job, String what, Condition condition)
      throws Exception {
    await(cluster, job, what, POLL, condition);
  }

  /** Polls {@code condition} every {@code poll} until it holds; fails if the job ends first. */
  static void await(
      BenchCluster cluster, String job, String what, Duration poll, Condition condition)
      throws Exception {
    long deadline = System.nanoTime() + STEP_TIMEOUT.toNanos();
    while (!condition.holds()) {
      String state = cluster.state(job);
      if (ENDED.contains(state)) {
        throw new IllegalStateException(
            "W8: job "
                + job
                + " ended "
                + state
                + " while waiting for "
                + what
                + (state.equals("FINISHED") ? ": run it with more records" : ""));
      }
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException("W8: no " + what + " of job " + job + " within 3 min");
      }
      Thread.sleep(poll.toMillis());
    }
  }

  private static void requireFinished(Engine engine, String what, String job, String state) {
    if (!state.equals("FINISHED")) {
      throw new IllegalStateException(
          "W8: the " + engine.id() + " " + what + " " + job + " ended " + state + ", not FINISHED");
    }
  }

  private static String awaitEnd(BenchCluster cluster, String job)
      throws IOException, InterruptedException {
    while (true) {
      String state = cluster.state(job);
      if (ENDED.contains(state)) {
        return state;
      }
      Thread.sleep(END_POLL.toMillis());
    }
  }
}

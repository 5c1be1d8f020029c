package io.weir.benchmarks.w8;

import com.fasterxml.jackson.databind.JsonNode;
import io.weir.benchmarks.ChildMain;
import io.weir.benchmarks.Engine;
import io.weir.benchmarks.JobArgs;
import io.weir.benchmarks.Result;
import io.weir.benchmarks.TempDir;
import io.weir.benchmarks.Workload;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.function.UnaryOperator;
import java.util.stream.Stream;

/**
 * JM-FAILOVER: the loss of the leading JobManager under ZooKeeper high availability, the same steps
 * on Weir and on Flink. Per run, each in fresh processes on 127.0.0.1:
 *
 * <ol>
 *   <li>a ZooKeeper server in a JVM of its own ({@link ZooKeeperServer}), two JobManagers and two
 *       1-slot TaskManagers with the same high-availability settings ({@link #clusterSettings}),
 *       the TaskManagers following the leader ZooKeeper publishes;
 *   <li>W8's job (W1's keyed count, parallelism 2) on an unbounded sequence, a checkpoint every
 *       second (exactly-once, aligned: both engines' default) into a shared directory, fixed-delay
 *       restarts (0 ms), the keyed function tracing when it processes ({@link ProcessingTrace});
 *   <li>after {@value #CHECKPOINTS_BEFORE_KILL} completed checkpoints, half a checkpoint interval
 *       after the next one completed (so every run kills at the same phase), SIGKILL of the leading
 *       JobManager, then a fresh JobManager started as the new standby;
 *   <li>the run ends once the new leader completed {@value #CHECKPOINTS_AFTER_KILL} checkpoints of
 *       the job; the figures come from {@link FailoverTimeline}, the published leader's znode and
 *       the REST APIs.
 * </ol>
 *
 * <p>Configurations: {@code step1} sets Weir's {@code high-availability.jobmanager-loss-grace} to
 * {@code 0 s} (a new leader recovers the job from its newest checkpoint and redeploys it); {@code
 * step2} leaves it at its default (TaskManagers keep the tasks running for a new leader to adopt).
 * Flink has no such setting: its run is the same in both.
 */
public final class JmFailover {
  /** The configurations both mains accept. */
  public static final List<String> CONFIGS = List.of("step1", "step2");

  /**
   * A directory to copy every run's process logs into, for a diagnosis (the runner never sets it).
   */
  static final String LOGS_PROPERTY = "weir.bench.jm-failover.logs";

  /** The same on both engines; ZooKeeper's tick is 500 ms ({@link ZooKeeperServer}). */
  static final String SESSION_TIMEOUT = "6 s";

  static final String CLUSTER_ID = "/jm-failover";
  static final int CHECKPOINTS_BEFORE_KILL = 10;
  static final int CHECKPOINTS_AFTER_KILL = 2;
  private static final Duration KILL_AFTER_CHECKPOINT = Duration.ofMillis(500);
  private static final Duration STEADY_POLL = Duration.ofMillis(200);
  private static final Duration ZOOKEEPER_POLL = Duration.ofMillis(10);
  private static final Duration REST_POLL = Duration.ofMillis(50);
  private static final Duration LEADER_TIMEOUT = Duration.ofSeconds(60);
  private static final Duration FAILOVER_TIMEOUT = Duration.ofMinutes(3);

  public static final Workload WORKLOAD =
      new Workload(
          "JM-FAILOVER",
          "jobmanager-failover",
          Long.MAX_VALUE,
          CONFIGS,
          Map.of(Engine.WEIR, WeirJmFailover.class, Engine.FLINK, FlinkJmFailover.class),
          Duration.ofSeconds(30),
          "ZooKeeper HA (session timeout 6 s on both, ZooKeeper tick 500 ms), 2 JobManagers, 2"
              + " TaskManagers, W1's job unbounded with a checkpoint every 1 s; the leading"
              + " JobManager SIGKILLed half an interval after the 11th completed checkpoint, a fresh"
              + " standby started; step1 = Weir's high-availability.jobmanager-loss-grace 0 s,"
              + " step2 = its default, 30 s (Flink: the same run in both); rec/s = records"
              + " processed from the first completed checkpoint to the kill / that time; all times"
              + " from the SIGKILL: resumeMs = first record processed in the job the new leader"
              + " runs (a restored task's first, or an adopted task's first after takeoverMs);"
              + " processingGapMs = longest time without any record processed from the last"
              + " checkpoint before the kill on (stoppedMs = its start); outputGapMs = last"
              + " checkpoint completed before the kill to the first after (what an exactly-once"
              + " sink's output sees); leaderGoneMs = the old leader's znode seen gone (its session"
              + " expired); leaderChangeMs = the new leader's znode written (ZooKeeper's mtime);"
              + " takeoverMs = the job switched to RUNNING on the new leader; adopted, restored ="
              + " task instances that kept running / were redeployed; failures = the job's"
              + " exception history on the new leader; clusterPeakRssKb = JobManagers and TaskManagers summed");

  private JmFailover() {}

  /** Starts one engine's cluster under high availability: its first JobManager runs. */
  @FunctionalInterface
  interface ClusterFactory {
    HaBenchCluster start(
        Path dir,
        Map<String, String> jobSettings,
        Map<String, String> clusterSettings,
        ZooKeeperServer zooKeeper)
        throws Exception;
  }

  /**
   * The main of {@code engine}: {@code <step1|step2> [records]}; prints one {@link Result}.
   *
   * @param leaderZnode the znode where the engine's leader publishes itself, by cluster id
   */
  static void main(
      Engine engine, String[] args, UnaryOperator<String> leaderZnode, ClusterFactory clusters) {
    ChildMain.run(
        () -> {
          JobArgs job = JobArgs.parse(args, WORKLOAD.id(), CONFIGS, WORKLOAD.defaultRecords());
          measure(engine, job, leaderZnode.apply(CLUSTER_ID), clusters).print();
        });
  }

  /**
   * The settings of every JobManager and TaskManager process, the same keys on both engines (Weir
   * uses Flink's): ZooKeeper high availability on {@code quorum} with its bytes under {@code
   * storage}; for Weir in {@code step1}, no adoption of running tasks.
   */
  static Map<String, String> clusterSettings(
      Engine engine, String config, String quorum, Path storage) {
    Map<String, String> settings = new LinkedHashMap<>();
    settings.put("high-availability.type", "zookeeper");
    settings.put("high-availability.zookeeper.quorum", quorum);
    settings.put("high-availability.storageDir", storage.toUri().toString());
    settings.put("high-availability.cluster-id", CLUSTER_ID);
    settings.put("high-availability.zookeeper.client.session-timeout", SESSION_TIMEOUT);
    if (engine == Engine.WEIR && config.equals("step1")) {
      settings.put("high-availability.jobmanager-loss-grace", "0 s");
    }
    if (engine == Engine.FLINK) {
      // Flink's REST API serves checkpoint statistics from a cache kept for web.refresh-interval
      // (3 s) by default: the last checkpoint before the kill must be seen when it completed.
      settings.put("rest.cache.checkpoint-statistics.timeout", "100 ms");
    }
    return settings;
  }

  private static Result measure(
      Engine engine, JobArgs job, String leaderZnode, ClusterFactory clusters) throws Exception {
    try (TempDir scratch = TempDir.create(engine.id() + "-jm-failover-")) {
      Path dir = scratch.path();
      try (ZooKeeperServer zooKeeper = ZooKeeperServer.start(dir, List.of(leaderZnode))) {
        Map<String, String> settings =
            clusterSettings(engine, job.config(), zooKeeper.quorum(), dir.resolve("ha"));
        try (HaBenchCluster cluster =
            clusters.start(
                dir, W8Run.jobSettings(true, dir.resolve("checkpoints")), settings, zooKeeper)) {
          return run(engine, job, cluster, zooKeeper, dir);
        }
      } finally {
        keepLogs(dir, engine, job.config());
      }
    }
  }

  private static Result run(
      Engine engine, JobArgs args, HaBenchCluster cluster, ZooKeeperServer zooKeeper, Path dir)
      throws Exception {
    cluster.awaitServing(cluster.startJobManager());
    HaBenchCluster.JobManager leader = cluster.awaitLeader(LEADER_TIMEOUT);
    cluster.startTaskManager();
    cluster.startTaskManager();
    Path traces = Files.createDirectories(dir.resolve("traces"));
    String job = cluster.submit(args.records(), "", traces.toString());
    W8Run.await(
        cluster,
        job,
        CHECKPOINTS_BEFORE_KILL + " completed checkpoints",
        STEADY_POLL,
        () -> completions(cluster, job).size() >= CHECKPOINTS_BEFORE_KILL);

    // The kill comes half an interval after a checkpoint completed: the same phase in every run.
    int seen = completions(cluster, job).size();
    W8Run.await(
        cluster,
        job,
        "one more completed checkpoint",
        STEADY_POLL,
        () -> completions(cluster, job).size() > seen);
    long completed = completions(cluster, job).stream().max(Long::compare).orElseThrow();
    long wait = completed + KILL_AFTER_CHECKPOINT.toMillis() - System.currentTimeMillis();
    if (wait > 0) {
      Thread.sleep(wait);
    }
    List<Long> before = completions(cluster, job);
    HaBenchCluster.PublishedLeader old = cluster.publishedLeader(zooKeeper).orElseThrow();
    if (old.restPort() != leader.restPort()) {
      throw new IllegalStateException(
          "JM-FAILOVER: ZooKeeper publishes the JobManager on REST port "
              + old.restPort()
              + " as the leader, not the one on "
              + leader.restPort()
              + " that the cluster found");
    }
    Instant killedAt = Instant.now();
    leader.process().kill();
    HaBenchCluster.JobManager replacement = cluster.startJobManager();
    Failover failover = awaitFailover(cluster, zooKeeper, job, old, killedAt);
    cluster.awaitServing(replacement);

    List<Long> completions = new ArrayList<>(before);
    completions.addAll(failover.completions());
    long killMicros = FirstRecordMarker.epochMicros(killedAt);
    long killMillis = killedAt.toEpochMilli();
    List<List<ProcessingTrace.Stamp>> traced = ProcessingTrace.read(traces);
    FailoverTimeline timeline =
        FailoverTimeline.of(
            killMicros,
            failover.takeoverMicros(),
            before.stream().min(Long::compare).orElseThrow() * 1000,
            traced,
            completions);
    List<BenchCluster.Failure> failures = cluster.failures(job);
    Files.writeString(
        dir.resolve("timeline.log"),
        report(engine, args.config(), killedAt, failover, timeline, failures, traced));
    return Result.of(
            engine,
            WORKLOAD.id(),
            args.config(),
            timeline.steadyRecords(),
            timeline.steadyMicros() * 1000)
        .with("resumeMs", millis(timeline.resumeMicros()))
        .with("processingGapMs", millis(timeline.processingGapMicros()))
        .with("outputGapMs", Long.toString(timeline.outputGapMillis()))
        .with("stoppedMs", millis(timeline.gapStartMicros()))
        .with("leaderGoneMs", Long.toString(failover.goneMillis() - killMillis))
        .with("leaderChangeMs", Long.toString(failover.elected().sinceMillis() - killMillis))
        .with("takeoverMs", millis(failover.takeoverMicros() - killMicros))
        .with("adopted", Integer.toString(timeline.adopted()))
        .with("restored", Integer.toString(timeline.restored()))
        .with("failures", Integer.toString(failures.size()))
        .with("clusterPeakRssKb", W8Run.clusterPeakRssKb(cluster));
  }

  /**
   * What the run saw after the kill.
   *
   * @param goneMillis when the old leader's znode was first seen gone or replaced (epoch ms, as the
   *     ZooKeeper server's JVM saw it)
   * @param elected the new leader as ZooKeeper published it
   * @param takeoverMicros when the job switched to RUNNING on the new leader ({@link
   *     #runningSince})
   * @param completions when the checkpoints the new leader lists completed (epoch ms)
   */
  record Failover(
      long goneMillis,
      HaBenchCluster.PublishedLeader elected,
      long takeoverMicros,
      List<Long> completions) {}

  /**
   * Polls ZooKeeper's report every {@link #ZOOKEEPER_POLL} until a new leader is published, then
   * the new leader's REST API every {@link #REST_POLL} until it reports the job running and {@link
   * #CHECKPOINTS_AFTER_KILL} checkpoints completed after the kill.
   */
  private static Failover awaitFailover(
      HaBenchCluster cluster,
      ZooKeeperServer zooKeeper,
      String job,
      HaBenchCluster.PublishedLeader old,
      Instant killedAt)
      throws Exception {
    long killMillis = killedAt.toEpochMilli();
    long deadline = System.nanoTime() + FAILOVER_TIMEOUT.toNanos();
    HaBenchCluster.PublishedLeader elected = null;
    long takeover = -1;
    while (true) {
      if (elected == null) {
        Optional<HaBenchCluster.PublishedLeader> now = cluster.publishedLeader(zooKeeper);
        if (now.isPresent() && now.get().restPort() != old.restPort()) {
          elected = now.get();
          cluster.awaitLeader(LEADER_TIMEOUT);
        }
      } else {
        if (takeover < 0) {
          takeover = runningSince(cluster, job);
        }
        if (takeover >= 0) {
          List<Long> completions = completions(cluster, job);
          if (completions.stream().filter(t -> t > killMillis).count() >= CHECKPOINTS_AFTER_KILL) {
            return new Failover(
                gone(cluster, zooKeeper, old, killMillis), elected, takeover, completions);
          }
        }
      }
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException(
            "JM-FAILOVER: no failover within "
                + FAILOVER_TIMEOUT.toMinutes()
                + " min of the SIGKILL at "
                + killedAt
                + " (new leader: "
                + elected
                + ", job running on it: "
                + (takeover >= 0)
                + "); keep the logs with -D"
                + LOGS_PROPERTY
                + "=DIR");
      }
      Thread.sleep((elected == null ? ZOOKEEPER_POLL : REST_POLL).toMillis());
    }
  }

  /**
   * When the server's JVM first saw the old leader's znode gone, or another leader's in it, after
   * the kill.
   */
  private static long gone(
      HaBenchCluster cluster,
      ZooKeeperServer zooKeeper,
      HaBenchCluster.PublishedLeader old,
      long killMillis)
      throws IOException {
    for (ZooKeeperServer.Znode state : zooKeeper.history(cluster.leaderZnode())) {
      if (state.seenMillis() >= killMillis
          && (!state.present() || cluster.leaderRestPort(state.data()) != old.restPort())) {
        return state.seenMillis();
      }
    }
    throw new IllegalStateException("JM-FAILOVER: the old leader's znode was never seen replaced");
  }

  /**
   * When the job the leader runs switched to RUNNING (epoch micros), or -1 while it does not run
   * there (yet): Flink's {@code timestamps.RUNNING} of {@code GET /jobs/<id>} where it is served
   * (Flink's REST API caches a job's details for {@code web.refresh-interval}, 3 s, so the state it
   * shows may be late), else now, when the state is first seen RUNNING (Weir's REST API answers
   * from the job master as it is).
   */
  private static long runningSince(HaBenchCluster cluster, String job) throws InterruptedException {
    JsonNode details;
    try {
      details = cluster.rest().get("/jobs/" + job);
    } catch (IOException e) {
      return -1; // not (yet) known to this leader
    }
    if (!details.path("state").asText().equals("RUNNING")) {
      return -1;
    }
    long since = details.path("timestamps").path("RUNNING").asLong(0);
    return since > 0 ? since * 1000 : FirstRecordMarker.epochMicros(Instant.now());
  }

  /**
   * When each checkpoint of {@code job} the leader lists completed, epoch ms: trigger time plus
   * end-to-end duration (both engines serve Flink's fields), oldest first.
   */
  static List<Long> completions(HaBenchCluster cluster, String job)
      throws IOException, InterruptedException {
    List<Long> completed = new ArrayList<>();
    cluster
        .rest()
        .get("/jobs/" + job + "/checkpoints")
        .path("history")
        .forEach(
            c -> {
              if (c.path("status").asText().equals("COMPLETED")) {
                completed.add(
                    c.path("trigger_timestamp").asLong() + c.path("end_to_end_duration").asLong());
              }
            });
    completed.sort(Long::compare);
    return completed;
  }

  /**
   * Where the failover's time went, and the records processed per second from the first record to
   * the end: printed on standard error and returned (the runner keeps no child's standard error, so
   * the run also writes it to a log of its own).
   */
  private static String report(
      Engine engine,
      String config,
      Instant killedAt,
      Failover failover,
      FailoverTimeline timeline,
      List<BenchCluster.Failure> failures,
      List<List<ProcessingTrace.Stamp>> traces) {
    long killMillis = killedAt.toEpochMilli();
    long killMicros = FirstRecordMarker.epochMicros(killedAt);
    String who = "JM-FAILOVER " + engine.id() + " " + config;
    StringBuilder text = new StringBuilder();
    text.append(
        String.format(
            Locale.ROOT,
            "%s: SIGKILL of the leader at %s; last checkpoint before %+d ms; processing stopped"
                + " %+.1f ms; old leader's znode gone %+d ms; new leader published %+d ms; job"
                + " RUNNING on it %+.1f ms; first record %+.1f ms (%d restored, %d adopted task"
                + " instances); processing again %+.1f ms; first checkpoint after %+d ms%n",
            who,
            killedAt,
            timeline.lastCheckpointBeforeMillis(),
            timeline.gapStartMicros() / 1e3,
            failover.goneMillis() - killMillis,
            failover.elected().sinceMillis() - killMillis,
            (failover.takeoverMicros() - killMicros) / 1e3,
            timeline.resumeMicros() / 1e3,
            timeline.restored(),
            timeline.adopted(),
            timeline.gapEndMicros() / 1e3,
            timeline.firstCheckpointAfterMillis()));
    for (BenchCluster.Failure f : failures) {
      text.append(
          String.format(
              Locale.ROOT, "%s: failure %+d ms %s%n", who, f.epochMillis() - killMillis, f.what()));
    }
    long first = traces.stream().mapToLong(t -> t.get(0).micros()).min().orElseThrow();
    text.append(
        String.format(
            Locale.ROOT,
            "%s: records processed per second from the first record, the kill in second %d: %s%n",
            who,
            (killMicros - first) / 1_000_000,
            FailoverTimeline.recordsPerSecond(traces, first)));
    System.err.print(text);
    return text.toString();
  }

  private static String millis(long micros) {
    return String.format(Locale.ROOT, "%.1f", micros / 1e3);
  }

  /** Copies the run's process logs to {@link #LOGS_PROPERTY}'s directory, if it is set. */
  private static void keepLogs(Path dir, Engine engine, String config) throws IOException {
    String target = System.getProperty(LOGS_PROPERTY, "");
    if (target.isEmpty()) {
      return;
    }
    Path into =
        Files.createDirectories(
            Path.of(target)
                .resolve(
                    engine.id() + "-" + config + "-" + Instant.now().toString().replace(':', '-')));
    try (Stream<Path> files = Files.list(dir)) {
      for (Path log : files.filter(f -> f.toString().endsWith(".log")).toList()) {
        Files.copy(log, into.resolve(log.getFileName()), StandardCopyOption.REPLACE_EXISTING);
      }
    }
    System.err.println("JM-FAILOVER: the run's logs are in " + into);
  }
}

package io.weir.cluster;

import static io.weir.cluster.FaultyProxy.Direction.FROM_TARGET;
import static io.weir.cluster.FaultyProxy.Direction.TO_TARGET;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Network faults between processes beyond resets and silent cuts ({@link ClusterNetworkFaultsIT}):
 * links that are slow, links that carry bytes one way only, and resets in the middle of a frame, on
 * the cluster of {@link ProxiedCluster}. Every job is a keyed count into an exactly-once file sink
 * whose input ends only when the test opens its gate, so no job ends before its faults; every
 * output is checked exact. Detection is bounded by the timeouts configured here, plus {@link
 * #SLACK} for a restart on a loaded two-core machine: no fault hangs a job for longer.
 */
class ClusterSlowAndOneWayLinksIT {

  private static final Duration HEARTBEAT_TIMEOUT = Duration.ofSeconds(3);
  private static final Duration CHECKPOINT_TIMEOUT = Duration.ofSeconds(4);

  /** Beyond a timeout: the failover, the REST poll and a scheduler's hiccup. */
  private static final Duration SLACK = Duration.ofSeconds(5);

  /** The gate file of each job: its input ends once the file exists ({@code GatedEnd}). */
  private static final Map<String, Path> GATES = new ConcurrentHashMap<>();

  private static ProxiedCluster proxied;
  private static TestCluster cluster;

  @BeforeAll
  static void startCluster() throws Exception {
    proxied =
        new ProxiedCluster(
            "slow-one-way-links",
            Map.of(
                ClusterOptions.HEARTBEAT_INTERVAL.key(), "200",
                ClusterOptions.HEARTBEAT_TIMEOUT.key(),
                    String.valueOf(HEARTBEAT_TIMEOUT.toMillis()),
                ClusterOptions.SLOT_REQUEST_TIMEOUT.key(), "60000"));
    cluster = proxied.cluster;
  }

  /** Connections broken, blackholed or reset, and directions slowed, by this class's tests. */
  private static final AtomicInteger FAULTS = new AtomicInteger();

  /** A test that failed leaves its job running: it would hold the slots the next one needs. */
  @AfterEach
  void cancelWhatIsLeft() throws Exception {
    for (FaultyProxy proxy : proxied.data) {
      proxy.shape(TO_TARGET, Duration.ZERO, 0);
      proxy.shape(FROM_TARGET, Duration.ZERO, 0);
    }
    for (String jobId : GATES.keySet()) {
      if (!List.of("FINISHED", "FAILED", "CANCELED").contains(cluster.jobState(jobId))) {
        cluster.client.cancel(jobId);
        cluster.awaitEnded(jobId);
      }
    }
  }

  @AfterAll
  static void stopCluster() {
    System.out.println("ClusterSlowAndOneWayLinksIT: " + FAULTS.get() + " network faults injected");
    if (proxied != null) {
      proxied.close();
    }
  }

  @Test
  void delayedAndThrottledLinksBetweenTaskManagersSlowCheckpointsDownButCostNoRestart()
      throws Exception {
    Path out = cluster.dir.resolve("out-slow");
    long n = 30_000;
    String jobId = runGatedKeyedCount(out, n, CHECKPOINT_TIMEOUT);
    long checkpoints = cluster.awaitRunningWithCheckpointsAfter(jobId, 0);
    await().atMost(Duration.ofSeconds(30)).until(() -> proxied.openDataConnections() > 0);
    long heldBefore = heldChunks();
    // Every chunk of every data connection, both ways (buffers one way, credits the other), waits
    // 30 ms, and each direction of each TaskManager's port carries at most 128 KiB/s: barriers
    // queue behind the data and credits come back late, as over a congested WAN link.
    for (FaultyProxy proxy : proxied.data) {
      proxy.shape(TO_TARGET, Duration.ofMillis(30), 128 * 1024);
      proxy.shape(FROM_TARGET, Duration.ofMillis(30), 128 * 1024);
      FAULTS.addAndGet(2);
    }
    try {
      cluster.awaitRunningWithCheckpointsAfter(jobId, checkpoints + 1);
      assertThat(heldChunks()).as("chunks held back by the delay").isGreaterThan(heldBefore);
    } finally {
      for (FaultyProxy proxy : proxied.data) {
        proxy.shape(TO_TARGET, Duration.ZERO, 0);
        proxy.shape(FROM_TARGET, Duration.ZERO, 0);
      }
    }
    JsonNode job = endAndAwait(jobId);
    assertThat(job.path("state").asText()).as(job.toString()).isEqualTo("FINISHED");
    assertThat(cluster.exceptionMessages(jobId)).as("no failure, no restart").isEmpty();
    TestCluster.assertKeyedCountExactlyOnce(out, n);
  }

  @Test
  void oneWayPartitionsOfTheDataPlaneAreFoundByPingsWithinTheHeartbeatTimeout() throws Exception {
    Path out = cluster.dir.resolve("out-data-one-way");
    long n = 45_000;
    // Checkpoints outlast the heartbeat timeout here, so that the pings, not an expired checkpoint,
    // find the partition (with the consumer's credits lost, barriers, which need none, still pass
    // and checkpoints go on completing while every record waits: only the pings find that one).
    String jobId = runGatedKeyedCount(out, n, HEARTBEAT_TIMEOUT.multipliedBy(4));
    long checkpoints = 0;
    // Producer to consumer (buffers, events, answers to pings), then consumer to producer
    // (requests, credits, pings).
    for (FaultyProxy.Direction direction : List.of(FROM_TARGET, TO_TARGET)) {
      checkpoints = cluster.awaitRunningWithCheckpointsAfter(jobId, checkpoints);
      await().atMost(Duration.ofSeconds(30)).until(() -> proxied.openDataConnections() > 0);
      long restarts = proxied.restartsOf(jobId);
      int blackholed = proxied.data.stream().mapToInt(p -> p.blackhole(direction)).sum();
      assertThat(blackholed).as("data connections blackholed %s", direction).isPositive();
      FAULTS.addAndGet(blackholed);
      awaitRestartWithin(jobId, restarts, HEARTBEAT_TIMEOUT.plus(SLACK));
      assertThat(cluster.exceptionMessages(jobId))
          .as("the failures, after blackholing %s", direction)
          .anyMatch(
              m ->
                  m.contains("The data connection to the TaskManager at 127.0.0.1:")
                      && m.contains("answered no ping for")
                      && m.contains("heartbeat.timeout = 3000"));
    }
    JsonNode job = endAndAwait(jobId);
    assertThat(job.path("state").asText()).as(job.toString()).isEqualTo("FINISHED");
    TestCluster.assertKeyedCountExactlyOnce(out, n);
  }

  @Test
  void resetsInTheMiddleOfFramesFailTheChannelTheyBrokeAndLoseNothing() throws Exception {
    Path out = cluster.dir.resolve("out-mid-frame");
    long n = 45_000;
    String jobId = runGatedKeyedCount(out, n, CHECKPOINT_TIMEOUT);
    long checkpoints = 0;
    // Producer to consumer: 6 bytes into a frame (its type and a byte of its stream), 300 bytes
    // into one (deep in a buffer's records); consumer to producer: 9 bytes into a credit's fields.
    List<FaultyProxy.Direction> directions = List.of(FROM_TARGET, TO_TARGET, FROM_TARGET);
    int[] offsets = {6, 9, 300};
    for (int i = 0; i < offsets.length; i++) {
      checkpoints = cluster.awaitRunningWithCheckpointsAfter(jobId, checkpoints);
      await().atMost(Duration.ofSeconds(30)).until(() -> proxied.openDataConnections() > 0);
      long restarts = proxied.restartsOf(jobId);
      int cutBefore = framesCut();
      FaultyProxy.Direction direction = directions.get(i);
      int into = offsets[i];
      int armed = proxied.data.stream().mapToInt(p -> p.resetInFrame(direction, into)).sum();
      assertThat(armed).as("data connections armed").isPositive();
      await().atMost(Duration.ofSeconds(30)).until(() -> framesCut() > cutBefore);
      FAULTS.addAndGet(framesCut() - cutBefore);
      awaitRestartWithin(jobId, restarts, SLACK);
    }
    JsonNode job = endAndAwait(jobId);
    assertThat(job.path("state").asText()).as(job.toString()).isEqualTo("FINISHED");
    assertThat(cluster.exceptionMessages(jobId))
        .as("each reset fails the channel it broke, naming the TaskManager")
        .anyMatch(m -> m.contains("The data connection to the TaskManager at 127.0.0.1:"));
    TestCluster.assertKeyedCountExactlyOnce(out, n);
  }

  @Test
  void oneWayPartitionsOfTheControlPlaneAreDetectedWithinTheHeartbeatTimeout() throws Exception {
    Path out = cluster.dir.resolve("out-control-one-way");
    long n = 45_000;
    // Checkpoints outlast the heartbeat timeout here, so that the heartbeats, not an expired
    // checkpoint, find the partition.
    String jobId = runGatedKeyedCount(out, n, HEARTBEAT_TIMEOUT.multipliedBy(4));

    // JobManager -> TaskManager 2: its calls (triggers, heartbeats) vanish; the TaskManager's own
    // heartbeats and reports still arrive.
    long checkpoints = cluster.awaitRunningWithCheckpointsAfter(jobId, 0);
    long restarts = proxied.restartsOf(jobId);
    FaultyProxy toSecond = proxied.toTaskManagers.get(1);
    int blackholed = toSecond.blackhole(TO_TARGET);
    assertThat(blackholed).as("connections to TaskManager 2").isPositive();
    FAULTS.addAndGet(blackholed);
    awaitRestartWithin(jobId, restarts, HEARTBEAT_TIMEOUT.plus(SLACK));
    assertThat(cluster.exceptionMessages(jobId))
        .as("the JobManager names the TaskManager it cannot reach")
        .anyMatch(
            m ->
                m.contains("at 127.0.0.1:" + toSecond.port() + " was lost")
                    && m.contains("answered none of the JobManager's")
                    && m.contains("heartbeat.timeout = 3000"));

    // TaskManagers -> JobManager: their calls (heartbeats, task reports, acknowledgements) vanish;
    // the JobManager's calls to them are answered.
    cluster.awaitRunningWithCheckpointsAfter(jobId, checkpoints);
    restarts = proxied.restartsOf(jobId);
    blackholed = proxied.toJobManager.blackhole(TO_TARGET);
    assertThat(blackholed).as("connections to the JobManager").isPositive();
    FAULTS.addAndGet(blackholed);
    awaitRestartWithin(jobId, restarts, HEARTBEAT_TIMEOUT.plus(SLACK));
    // Each TaskManager, hearing nothing, cancels its tasks and registers again on a new connection:
    // whichever reaches the JobManager first fails the attempt, and either names the fault.
    assertThat(cluster.exceptionMessages(jobId))
        .as(
            "a TaskManager that lost the JobManager says so, or registers again on a new connection")
        .anyMatch(
            m ->
                m.contains("was lost: it registered again")
                    || m.contains("cancelled its tasks: it lost the JobManager at 127.0.0.1:")
                        && m.contains("heartbeat.timeout = 3000"));

    JsonNode job = endAndAwait(jobId);
    assertThat(job.path("state").asText()).as(job.toString()).isEqualTo("FINISHED");
    TestCluster.assertKeyedCountExactlyOnce(out, n);
  }

  /** The keyed count of {@code n} records into {@code out}, ending only when its gate opens. */
  private static String runGatedKeyedCount(Path out, long n, Duration checkpointTimeout)
      throws Exception {
    List<String> args =
        new ArrayList<>(
            TestCluster.keyedCountArgs(
                out, n, cluster.dir.resolve("checkpoints-" + out.getFileName()), 3));
    Path gate = out.resolveSibling(out.getFileName() + ".gate");
    args.add(gate.toString());
    String jobId =
        cluster.client.run(
            proxied.jarId,
            "io.weir.testjobs.KeyedCountJob",
            args,
            2,
            Map.of("execution.checkpointing.timeout", checkpointTimeout.toMillis() + " ms"));
    GATES.put(jobId, gate);
    return jobId;
  }

  /** Opens the job's gate and waits for its end. */
  private static JsonNode endAndAwait(String jobId) throws Exception {
    Files.createFile(GATES.get(jobId));
    return cluster.awaitEnded(jobId);
  }

  /** Waits, at most {@code bound} (a timeout and slack), for the job's next failure. */
  private static void awaitRestartWithin(String jobId, long restartsBefore, Duration bound) {
    await()
        .atMost(bound)
        .pollInterval(Duration.ofMillis(100))
        .until(() -> proxied.restartsOf(jobId) > restartsBefore);
  }

  private static long heldChunks() {
    return proxied.data.stream().mapToLong(FaultyProxy::heldChunks).sum();
  }

  private static int framesCut() {
    return proxied.data.stream().mapToInt(FaultyProxy::framesCut).sum();
  }
}

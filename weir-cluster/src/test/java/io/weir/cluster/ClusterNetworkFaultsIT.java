package io.weir.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Network faults between processes, on the cluster of {@link ProxiedCluster}: every connection
 * between the TaskManagers and to and from the JobManager runs through a proxy the test controls.
 *
 * <p>On the data plane, a keyed count into an exactly-once file sink gets its connections reset in
 * the middle of frames three times, then cut silently (half-open: nothing arrives, nothing closes);
 * the reset is reported as the failure of the channel it broke, the silent cut ends with the
 * checkpoint timeout (no hang longer than it), and the output is exact. On the control plane, the
 * TaskManagers' connections to the JobManager are reset twice and then cut silently: the JobManager
 * loses the TaskManagers after the heartbeat timeout, they register again on fresh connections, and
 * the job finishes with exact output. Slow links, one-way partitions and resets at chosen points of
 * a frame: {@link ClusterSlowAndOneWayLinksIT}.
 */
class ClusterNetworkFaultsIT {

  private static ProxiedCluster proxied;
  private static TestCluster cluster;
  private static String jarId;
  private static List<FaultyProxy> proxies;

  /**
   * The control plane: one proxy in front of the JobManager's control port, for both TaskManagers,
   * and one in front of each TaskManager's.
   */
  private static List<FaultyProxy> controlProxies;

  @BeforeAll
  static void startCluster() throws Exception {
    proxied =
        new ProxiedCluster(
            "network-faults",
            Map.of(
                ClusterOptions.HEARTBEAT_INTERVAL.key(), "250",
                ClusterOptions.HEARTBEAT_TIMEOUT.key(), "5000",
                ClusterOptions.SLOT_REQUEST_TIMEOUT.key(), "60000"));
    cluster = proxied.cluster;
    jarId = proxied.jarId;
    proxies = proxied.data;
    controlProxies = proxied.control();
  }

  @AfterAll
  static void stopCluster() {
    if (proxied != null) {
      proxied.close();
    }
  }

  /** The keyed count of {@code n} records into {@code out}, parallelism 2: one subtask per TM. */
  private static String runKeyedCount(Path out, long n) throws Exception {
    return cluster.runKeyedCount(
        jarId,
        out,
        n,
        "checkpoints-" + out.getFileName(),
        3,
        Map.of("execution.checkpointing.timeout", "4 s"));
  }

  @Test
  void resetAndHalfOpenConnectionsBetweenTaskManagersCostRestartsNotRecords() throws Exception {
    Path out = cluster.dir.resolve("out");
    long n = 150_000;
    String jobId = runKeyedCount(out, n);

    for (int fault = 1; fault <= 4; fault++) {
      long checkpointsBefore = cluster.completedCheckpoints(jobId);
      long restartsBefore = restartsOf(jobId);
      // Running, with a checkpoint since the last fault and data crossing the proxies.
      await()
          .atMost(Duration.ofSeconds(90))
          .pollInterval(Duration.ofMillis(100))
          .until(
              () ->
                  cluster.jobState(jobId).equals("RUNNING")
                      && cluster.completedCheckpoints(jobId) > checkpointsBefore + 1
                      && openConnections() > 0);
      int broken = fault < 4 ? resetAll() : cutAll();
      assertThat(broken).as("connections broken by fault %d", fault).isPositive();
      awaitRestart(jobId, restartsBefore);
    }
    JsonNode job = cluster.awaitEnded(jobId);
    assertThat(job.path("state").asText()).as(job.toString()).isEqualTo("FINISHED");

    List<String> reasons = cluster.exceptionMessages(jobId);
    assertThat(reasons)
        .as("each reset fails the channel it broke, naming it")
        .anyMatch(m -> m.contains("input channel") || m.contains("channel"));
    assertThat(reasons)
        .as("the half-open connection ends with the checkpoint timeout")
        .anyMatch(
            m ->
                m.toLowerCase(java.util.Locale.ROOT).contains("expired")
                    || m.toLowerCase(java.util.Locale.ROOT).contains("timeout")
                    || m.toLowerCase(java.util.Locale.ROOT).contains("timed out"));

    TestCluster.assertKeyedCountExactlyOnce(out, n);
  }

  @Test
  void resetAndHalfOpenConnectionsToTheJobManagerCostRestartsNotRecords() throws Exception {
    Path out = cluster.dir.resolve("out-control");
    long n = 150_000;
    String jobId = runKeyedCount(out, n);
    long checkpoints = cluster.completedCheckpoints(jobId);
    // Resets: gRPC calls in flight fail, the channels connect again; the job may or may not
    // restart, but it loses nothing.
    for (int reset = 1; reset <= 2; reset++) {
      checkpoints = cluster.awaitRunningWithCheckpointsAfter(jobId, checkpoints);
      assertThat(controlProxies.stream().mapToInt(FaultyProxy::resetAll).sum())
          .as("control connections reset")
          .isPositive();
    }
    // A silent cut both ways: the JobManager hears nothing from either TaskManager and loses both
    // after the heartbeat timeout; each TaskManager hears nothing from the JobManager and must
    // register again, on a new connection, for the job to get its slots back.
    cluster.awaitRunningWithCheckpointsAfter(jobId, checkpoints);
    long restartsBefore = restartsOf(jobId);
    long acceptedBefore = controlProxies.get(0).accepted();
    assertThat(controlProxies.stream().mapToInt(FaultyProxy::cutAll).sum())
        .as("control connections cut")
        .isPositive();
    awaitRestart(jobId, restartsBefore);
    JsonNode job = cluster.awaitEnded(jobId);
    assertThat(job.path("state").asText()).as(job.toString()).isEqualTo("FINISHED");
    assertThat(controlProxies.get(0).accepted())
        .as("the TaskManagers connected to the JobManager again after the cut")
        .isGreaterThan(acceptedBefore);
    assertThat(cluster.exceptionMessages(jobId))
        .as("the cut is reported as a TaskManager lost to the heartbeat timeout")
        .anyMatch(m -> m.contains("was lost") && m.contains("heartbeat"));
    TestCluster.assertKeyedCountExactlyOnce(out, n);
  }

  private static void awaitRestart(String jobId, long restartsBefore) {
    await()
        .atMost(Duration.ofSeconds(60))
        .pollInterval(Duration.ofMillis(100))
        .until(() -> restartsOf(jobId) > restartsBefore);
  }

  private static long restartsOf(String jobId) throws Exception {
    return proxied.restartsOf(jobId);
  }

  private static int openConnections() {
    return proxied.openDataConnections();
  }

  private static int resetAll() {
    return proxies.stream().mapToInt(FaultyProxy::resetAll).sum();
  }

  private static int cutAll() {
    return proxies.stream().mapToInt(FaultyProxy::cutAll).sum();
  }
}

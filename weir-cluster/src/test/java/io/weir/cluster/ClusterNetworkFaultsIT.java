package io.weir.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Network faults on the data plane between TaskManager processes. Each of two one-slot TaskManagers
 * binds its data port behind a {@link FaultyProxy} and advertises the proxy's port ({@code
 * taskmanager.data.bind-port} and {@code taskmanager.data.port}, as behind NAT), so every
 * connection of a job of parallelism 2's keyed exchange runs through a proxy the test controls. A
 * keyed count into an exactly-once file sink gets its connections reset in the middle of frames
 * three times, then cut silently (half-open: nothing arrives, nothing closes); the reset is
 * reported as the failure of the channel it broke, the silent cut ends with the checkpoint timeout
 * (no hang longer than it), and the output is exact.
 */
class ClusterNetworkFaultsIT {

  private static TestCluster cluster;
  private static String jarId;
  private static final List<FaultyProxy> proxies = new ArrayList<>();

  @BeforeAll
  static void startCluster() throws Exception {
    cluster =
        new TestCluster(
            "network-faults",
            Map.of(
                ClusterOptions.HEARTBEAT_INTERVAL.key(), "250",
                ClusterOptions.HEARTBEAT_TIMEOUT.key(), "5000",
                ClusterOptions.SLOT_REQUEST_TIMEOUT.key(), "60000"));
    cluster.startJobManager();
    for (int i = 0; i < 2; i++) {
      int bindPort = freePort();
      FaultyProxy proxy = new FaultyProxy(bindPort);
      proxies.add(proxy);
      cluster.startTaskManager(
          1,
          Map.of(
              ClusterOptions.TM_DATA_BIND_PORT.key(), String.valueOf(bindPort),
              ClusterOptions.TM_DATA_PORT.key(), String.valueOf(proxy.port())));
    }
    jarId = cluster.client.upload(TestCluster.testJobJar(cluster.dir.resolve("job.jar"), null));
  }

  @AfterAll
  static void stopCluster() {
    proxies.forEach(FaultyProxy::close);
    if (cluster != null) {
      cluster.close();
    }
  }

  /** A port free now on 127.0.0.1, for a TaskManager to bind behind its proxy. */
  private static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return s.getLocalPort();
    }
  }

  @Test
  void resetAndHalfOpenConnectionsBetweenTaskManagersCostRestartsNotRecords() throws Exception {
    Path out = cluster.dir.resolve("out");
    long n = 150_000;
    String jobId =
        cluster.client.run(
            jarId,
            "io.weir.testjobs.KeyedCountJob",
            List.of(
                out.toString(),
                String.valueOf(n),
                "10",
                cluster.dir.resolve("checkpoints").toUri().toString(),
                "3"),
            2,
            Map.of("execution.checkpointing.timeout", "4 s"));

    long restarts = 0;
    for (int fault = 1; fault <= 4; fault++) {
      long checkpointsBefore = cluster.completedCheckpoints(jobId);
      long restartsBefore = restarts;
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
      await()
          .atMost(Duration.ofSeconds(60))
          .pollInterval(Duration.ofMillis(100))
          .until(() -> restartsOf(jobId) > restartsBefore);
      restarts = restartsOf(jobId);
    }
    await()
        .atMost(Duration.ofSeconds(180))
        .pollInterval(Duration.ofMillis(200))
        .until(() -> List.of("FINISHED", "FAILED", "CANCELED").contains(cluster.jobState(jobId)));
    JsonNode job = cluster.client.get("/jobs/" + jobId);
    assertThat(job.path("state").asText()).as(job.toString()).isEqualTo("FINISHED");

    List<String> reasons = new ArrayList<>();
    cluster
        .client
        .get("/jobs/" + jobId + "/exceptions")
        .path("exceptionHistory")
        .path("entries")
        .forEach(e -> reasons.add(e.path("message").asText()));
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

  /** Failures the job master recorded so far: one per restart. */
  private static long restartsOf(String jobId) throws Exception {
    return cluster
        .client
        .get("/jobs/" + jobId + "/exceptions")
        .path("exceptionHistory")
        .path("entries")
        .size();
  }

  private static int openConnections() {
    return proxies.stream().mapToInt(FaultyProxy::open).sum();
  }

  private static int resetAll() {
    return proxies.stream().mapToInt(FaultyProxy::resetAll).sum();
  }

  private static int cutAll() {
    return proxies.stream().mapToInt(FaultyProxy::cutAll).sum();
  }
}

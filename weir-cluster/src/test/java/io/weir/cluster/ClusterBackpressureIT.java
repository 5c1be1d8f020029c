package io.weir.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Backpressure across processes: a fast source feeds a slow keyed map over the data plane between
 * two one-slot TaskManagers. The producers' output memory stays at the credit bound however long
 * the job runs, and unaligned checkpoints complete under that backpressure with in-flight data.
 */
class ClusterBackpressureIT {

  /** Default credits per channel (taskmanager.network.memory.buffers-per-channel). */
  private static final int CREDITS = 4;

  private static TestCluster cluster;

  @BeforeAll
  static void startCluster() throws Exception {
    cluster =
        new TestCluster(
            "backpressure",
            Map.of(
                ClusterOptions.HEARTBEAT_INTERVAL.key(),
                "500",
                ClusterOptions.HEARTBEAT_TIMEOUT.key(),
                "10000"));
    cluster.startJobManager();
    cluster.startTaskManager(1);
    cluster.startTaskManager(1);
  }

  @AfterAll
  static void stopCluster() {
    if (cluster != null) {
      cluster.close();
    }
  }

  @Test
  void aSlowConsumerBoundsTheProducersMemoryAndUnalignedCheckpointsComplete() throws Exception {
    String jarId =
        cluster.client.upload(TestCluster.testJobJar(cluster.dir.resolve("job.jar"), null));
    String jobId =
        cluster.client.run(
            jarId,
            "io.weir.testjobs.SlowSinkJob",
            List.of(cluster.dir.resolve("checkpoints").toUri().toString()),
            2,
            Map.of());
    // Each source subtask writes 2 channels (one per consumer, one of them remote): at most its
    // credits, the buffer being filled and one on its way back to the pool, per channel.
    long bound = 2L * (CREDITS + 2);
    long[] peak = new long[1];
    await()
        .atMost(Duration.ofSeconds(120))
        .pollInterval(Duration.ofMillis(200))
        .until(
            () -> {
              for (JsonNode tm : cluster.client.get("/taskmanagers").path("taskmanagers")) {
                peak[0] = Math.max(peak[0], tm.path("outputBuffers").asLong());
              }
              // Sampled over a run long enough for several heartbeats to report the memory.
              return peak[0] > 0 && unalignedWithInFlightData(jobId) >= 10;
            });
    System.out.printf(
        "Peak output buffers of a TaskManager under backpressure: %d (bound %d, %d KiB)%n",
        peak[0], bound, peak[0] * 32);
    assertThat(peak[0])
        .as("output buffers of a TaskManager")
        .isPositive()
        .isLessThanOrEqualTo(bound);
    JsonNode job = cluster.client.get("/jobs/" + jobId);
    assertThat(job.path("state").asText()).isEqualTo("RUNNING");
    assertThat(job.path("metrics").path("job.restarts").asLong()).isZero();
    // The TaskManagers report their subtasks' counters to the JobManager's REST API.
    assertThat(job.path("vertices").size()).as(job.toString()).isEqualTo(2);
    JsonNode map = cluster.client.get("/jobs/" + jobId + "/vertices/1");
    assertThat(map.path("subtasks").size()).isEqualTo(2);
    java.util.Set<String> endpoints = new java.util.HashSet<>();
    for (JsonNode subtask : map.path("subtasks")) {
      assertThat(subtask.path("metrics").path("read-records").asLong())
          .as(subtask.toString())
          .isPositive();
      endpoints.add(subtask.path("endpoint").asText());
    }
    assertThat(endpoints).as("one subtask on each TaskManager").hasSize(2);
    // The source waits for the slow map's credits nearly all the time.
    await()
        .atMost(Duration.ofSeconds(30))
        .pollInterval(Duration.ofMillis(500))
        .untilAsserted(
            () -> {
              JsonNode source = cluster.client.get("/jobs/" + jobId + "/vertices/0/backpressure");
              assertThat(source.path("backpressure-level").asText())
                  .as(source.toString())
                  .isEqualTo("high");
              assertThat(source.path("subtasks").get(0).path("ratio").asDouble())
                  .isGreaterThan(0.5);
            });
    cluster.client.cancel(jobId);
    await()
        .atMost(Duration.ofSeconds(60))
        .pollInterval(Duration.ofMillis(100))
        .until(() -> cluster.jobState(jobId).equals("CANCELED"));
  }

  /** Completed unaligned checkpoints whose subtasks recorded in-flight data. */
  private static long unalignedWithInFlightData(String jobId) throws Exception {
    long n = 0;
    for (JsonNode cp : cluster.client.get("/jobs/" + jobId + "/checkpoints").path("history")) {
      if (!cp.path("status").asText().equals("COMPLETED") || !cp.path("is_unaligned").asBoolean()) {
        continue;
      }
      long inFlight = 0;
      for (JsonNode subtask : cp.path("subtasks")) {
        inFlight += subtask.path("channel_state_size").asLong();
      }
      if (inFlight > 0) {
        n++;
      }
    }
    return n;
  }
}

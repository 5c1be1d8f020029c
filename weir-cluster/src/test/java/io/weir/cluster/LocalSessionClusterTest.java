package io.weir.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import io.weir.cluster.client.ClusterClient;
import io.weir.cluster.rpc.HostPort;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The local session cluster of {@code weir run}: its REST API outlives the job it runs for as long
 * as a savepoint's outcome has not been sent, so that {@code weir stop}, which asks for the
 * savepoint's location after the stop has ended the job, gets it.
 */
@Timeout(120)
class LocalSessionClusterTest {

  @TempDir Path dir;

  @Test
  void aStoppedJobsSavepointOutcomeIsServedAfterTheJobEnded() throws Exception {
    try (LocalSessionCluster cluster = new LocalSessionCluster(Map.of())) {
      ClusterClient client =
          new ClusterClient(HostPort.parse("127.0.0.1:" + cluster.restPort(), "address"), null);
      String jobId = runUntilACheckpoint(client, 1_000_000);

      String trigger = client.stopWithSavepoint(jobId, dir.resolve("savepoints").toString(), false);
      awaitFinished(client, jobId);
      assertThat(cluster.awaitSavepointOutcomesSent(jobId, Duration.ZERO))
          .as("the job has ended, but nobody has been told where its savepoint is")
          .isFalse();

      String savepoint = client.awaitSavepoint(jobId, trigger, () -> {});
      assertThat(Files.exists(Path.of(URI.create(savepoint)).resolve("_metadata"))).isTrue();
      assertThat(cluster.awaitSavepointOutcomesSent(jobId, Duration.ofSeconds(30))).isTrue();
    }
  }

  @Test
  void aJobsEndTimeAndDurationAreServedAsFlinksAre() throws Exception {
    try (LocalSessionCluster cluster = new LocalSessionCluster(Map.of())) {
      ClusterClient client =
          new ClusterClient(HostPort.parse("127.0.0.1:" + cluster.restPort(), "address"), null);
      long submitted = System.currentTimeMillis();
      String jobId = runUntilACheckpoint(client, 20_000);
      JsonNode running = client.get("/jobs/" + jobId);
      if (running.path("state").asText().equals("RUNNING")) {
        assertThat(running.path("end-time").asLong()).as(running.toString()).isEqualTo(-1);
        assertThat(running.path("duration").asLong())
            .isEqualTo(running.path("now").asLong() - running.path("start-time").asLong());
      }

      awaitFinished(client, jobId);
      long seenFinished = System.currentTimeMillis();
      JsonNode ended = client.get("/jobs/" + jobId);
      long start = ended.path("start-time").asLong();
      long end = ended.path("end-time").asLong();
      assertThat(start).as(ended.toString()).isBetween(submitted, end);
      assertThat(end).isLessThanOrEqualTo(seenFinished);
      assertThat(ended.path("duration").asLong()).isEqualTo(end - start);
      // It stays put once the job has ended.
      assertThat(client.get("/jobs/" + jobId).path("end-time").asLong()).isEqualTo(end);
    }
  }

  @Test
  void oneEndpointServesTheMetricsOfBothRolesWhenAPortIsSet() throws Exception {
    try (LocalSessionCluster cluster = new LocalSessionCluster(Map.of())) {
      assertThat(cluster.metricsPort()).as("no port set: no endpoint").isEqualTo(-1);
    }
    try (LocalSessionCluster cluster =
        new LocalSessionCluster(Map.of("metrics.reporter.prom.port", "0"))) {
      ClusterClient client =
          new ClusterClient(HostPort.parse("127.0.0.1:" + cluster.restPort(), "address"), null);
      String jobId = runUntilACheckpoint(client, 1_000_000);
      HttpClient http = HttpClient.newHttpClient();
      URI metrics = URI.create("http://127.0.0.1:" + cluster.metricsPort() + "/metrics");

      String scraped =
          http.send(HttpRequest.newBuilder(metrics).build(), HttpResponse.BodyHandlers.ofString())
              .body();

      assertThat(scraped)
          .contains("weir_jobmanager_job_numberOfCompletedCheckpoints{job_id=\"" + jobId + "\"")
          .contains("weir_taskmanager_job_task_numRecordsIn{job_id=\"" + jobId + "\"")
          .contains("weir_taskmanager_rocksdb_block_cache_usage")
          .contains("jvm_memory_used_bytes{");
      client.cancel(jobId);
    }
  }

  /**
   * Submits {@code KeyedCountJob} over {@code records} numbers (a millisecond's sleep every 20) and
   * waits for its first completed checkpoint.
   */
  private String runUntilACheckpoint(ClusterClient client, long records) throws Exception {
    String jarId = client.upload(TestCluster.testJobJar(dir.resolve("job.jar"), null));
    String jobId =
        client.run(
            jarId,
            "io.weir.testjobs.KeyedCountJob",
            List.of(
                dir.resolve("out").toString(),
                Long.toString(records),
                "10",
                dir.resolve("checkpoints").toUri().toString(),
                "20"),
            1,
            Map.of());
    await()
        .atMost(Duration.ofSeconds(60))
        .until(
            () ->
                client
                        .get("/jobs/" + jobId + "/checkpoints")
                        .path("counts")
                        .path("completed")
                        .asLong()
                    > 0);
    return jobId;
  }

  private static void awaitFinished(ClusterClient client, String jobId) {
    await()
        .atMost(Duration.ofSeconds(60))
        .until(() -> client.get("/jobs/" + jobId).path("state").asText().equals("FINISHED"));
  }
}

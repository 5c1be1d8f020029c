package io.weir.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import io.weir.cluster.metrics.MetricOptions;
import io.weir.cluster.rest.messages.RestJson;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.OptionalDouble;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A JobManager and a TaskManager as real processes, each serving Prometheus metrics on a free port
 * ({@code metrics.reporter.prom.port=0}, the port read from its status file), scraped while a job
 * runs, fails once on the test's signal and restores: the JobManager's job metrics count completed
 * checkpoints, the restart and the restore's time; the TaskManager's task metrics follow the
 * subtasks from one attempt to the next; both serve the JVM's metrics.
 */
class ClusterMetricsIT {

  private static final Duration WAIT = Duration.ofSeconds(30);
  private static final Duration POLL = Duration.ofMillis(100);

  private static TestCluster cluster;
  private static String jarId;
  private static final HttpClient HTTP = HttpClient.newHttpClient();

  @BeforeAll
  static void startCluster() throws Exception {
    cluster =
        new TestCluster(
            "metrics",
            Map.of(
                MetricOptions.PROMETHEUS_PORT.key(), "0",
                ClusterOptions.HEARTBEAT_INTERVAL.key(), "250",
                ClusterOptions.HEARTBEAT_TIMEOUT.key(), "5000"));
    cluster.startJobManager();
    cluster.startTaskManager(2);
    jarId = cluster.client.upload(TestCluster.testJobJar(cluster.dir.resolve("job.jar"), null));
  }

  @AfterAll
  static void stopCluster() {
    if (cluster != null) {
      cluster.close();
    }
  }

  private static String scrape(TestCluster.Node node) throws Exception {
    int port = Integer.parseInt(node.status.get("metrics.port"));
    HttpResponse<String> response =
        HTTP.send(
            HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/metrics")).build(),
            HttpResponse.BodyHandlers.ofString());
    assertThat(response.statusCode()).isEqualTo(200);
    return response.body();
  }

  /** The value of {@code metric} for {@code jobId} in the JobManager's metrics, if reported. */
  private static OptionalDouble jobMetric(String metric, String jobId) throws Exception {
    return value(scrape(cluster.jobManager), "weir_jobmanager_job_" + metric + "{", jobId);
  }

  private static OptionalDouble value(String scraped, String prefix, String... contained) {
    for (String line : scraped.split("\n")) {
      if (line.startsWith(prefix) && List.of(contained).stream().allMatch(line::contains)) {
        return OptionalDouble.of(Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1)));
      }
    }
    return OptionalDouble.empty();
  }

  /**
   * The paths otherwise tested on the local session cluster only, once each against real processes
   * and a running job that restarted and completed checkpoints since: each answers 200 with its key
   * field.
   */
  private static void theRestApiServesTheRunningJob(String jobId, String taskManagerId)
      throws Exception {
    assertThat(rest("/overview").path("taskmanagers").asInt()).isEqualTo(1);
    assertThat(rest("/config").path("refresh-interval").asLong()).isPositive();
    assertThat(rest("/jobmanager/config").toString())
        .contains("{\"key\":\"" + MetricOptions.PROMETHEUS_PORT.key() + "\",\"value\":\"0\"}");
    String job = "/jobs/" + jobId;
    assertThat(rest(job + "/config").path("jid").asText()).isEqualTo(jobId);
    JsonNode nodes = rest(job + "/plan").path("plan").path("nodes");
    assertThat(nodes.get(nodes.size() - 1).path("inputs").get(0).path("ship_strategy").asText())
        .as(nodes.toString())
        .isEqualTo("HASH");
    assertThat(rest(job + "/checkpoints/config").path("interval").asLong()).isEqualTo(200);
    long completed =
        rest(job + "/checkpoints").path("latest").path("completed").path("id").asLong();
    assertThat(rest(job + "/checkpoints/details/" + completed).path("status").asText())
        .isEqualTo("COMPLETED");
    assertThat(rest(job + "/metrics?get=numRestarts").get(0).path("value").asLong())
        .isGreaterThanOrEqualTo(1);
    assertThat(rest("/taskmanagers/" + taskManagerId).path("slotsNumber").asInt()).isEqualTo(2);
  }

  /** {@code GET path} of the JobManager's REST API, which must answer 200. */
  private static JsonNode rest(String path) throws Exception {
    HttpResponse<String> response =
        HTTP.send(
            HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + cluster.restPort + path))
                .build(),
            HttpResponse.BodyHandlers.ofString());
    assertThat(response.statusCode()).as("GET %s: %s", path, response.body()).isEqualTo(200);
    return RestJson.MAPPER.readTree(response.body());
  }

  @Test
  void aScrapeDuringAJobWithAFailureCountsCheckpointsTheRestartAndTheRestore() throws Exception {
    Path signal = cluster.dir.resolve("fail-now");
    String jobId =
        cluster.client.run(
            jarId,
            "io.weir.testjobs.FailOnSignalJob",
            List.of(cluster.dir.resolve("checkpoints").toUri().toString(), signal.toString()),
            1,
            Map.of());
    String ofJob = "job_id=\"" + jobId + "\"";

    await()
        .atMost(WAIT)
        .pollInterval(POLL)
        .until(() -> jobMetric("numberOfCompletedCheckpoints", jobId).orElse(0) >= 2);
    assertThat(jobMetric("numRestarts", jobId)).hasValue(0);
    assertThat(jobMetric("lastCheckpointRestoreTimestamp", jobId)).hasValue(-1);
    assertThat(jobMetric("lastCheckpointDuration", jobId).orElseThrow()).isNotNegative();
    assertThat(jobMetric("lastCheckpointFullSize", jobId).orElseThrow())
        .as("the keyed counts are state")
        .isPositive();
    assertThat(jobMetric("uptime", jobId).orElseThrow()).isPositive();
    String jobManager = scrape(cluster.jobManager);
    assertThat(jobManager)
        .contains("job_name=\"fail-on-signal\"")
        .contains("jvm_memory_used_bytes{");

    TestCluster.Node taskManager = cluster.taskManagers.get(0);
    await()
        .atMost(WAIT)
        .pollInterval(POLL)
        .until(
            () ->
                value(
                            scrape(taskManager),
                            "weir_taskmanager_job_task_numRecordsOut{",
                            ofJob,
                            "FailOnSignal\"",
                            "task_attempt_num=\"0\"")
                        .orElse(0)
                    > 0);
    String firstAttempt = scrape(taskManager);
    for (String metric :
        List.of(
            "numRecordsInPerSecond",
            "numRecordsOutPerSecond",
            "backPressuredTimeMsPerSecond",
            "busyTimeMsPerSecond",
            "idleTimeMsPerSecond",
            "checkpointStartDelayNanos",
            "checkpointAlignmentTime")) {
      assertThat(value(firstAttempt, "weir_taskmanager_job_task_" + metric + "{", ofJob))
          .as(metric)
          .isPresent();
    }
    assertThat(firstAttempt)
        .contains("task_name=\"Count -> Discard\"")
        .contains("subtask_index=\"0\"")
        .contains("jvm_threads_live_threads")
        .contains("weir_taskmanager_rocksdb_block_cache_usage");

    long failedAt = System.currentTimeMillis();
    Files.createFile(signal);

    await()
        .atMost(WAIT)
        .pollInterval(POLL)
        .until(() -> jobMetric("numRestarts", jobId).orElse(0) >= 1);
    assertThat(jobMetric("lastCheckpointRestoreTimestamp", jobId).orElseThrow())
        .as("the restart restored a checkpoint")
        .isGreaterThanOrEqualTo(failedAt);
    // Counted from here on, a completed checkpoint is the new attempt's.
    double completedAtRestart = jobMetric("numberOfCompletedCheckpoints", jobId).orElseThrow();
    await()
        .atMost(WAIT)
        .pollInterval(POLL)
        .until(
            () -> jobMetric("numberOfCompletedCheckpoints", jobId).orElse(0) > completedAtRestart);
    String secondAttempt = scrape(taskManager);
    // Kept beside the processes' logs, for a reader of what a scrape holds.
    Files.writeString(cluster.dir.resolve("taskmanager.prom"), secondAttempt);
    Files.writeString(cluster.dir.resolve("jobmanager.prom"), scrape(cluster.jobManager));
    assertThat(
            value(
                secondAttempt,
                "weir_taskmanager_job_task_numRecordsIn{",
                ofJob,
                "task_attempt_num=\"1\""))
        .isPresent();
    assertThat(
            value(
                secondAttempt,
                "weir_taskmanager_job_task_numRecordsIn{",
                ofJob,
                "task_attempt_num=\"0\""))
        .as("the failed attempt's subtasks are no longer reported")
        .isEmpty();

    theRestApiServesTheRunningJob(jobId, taskManager.id);

    cluster.client.cancel(jobId);
    await()
        .atMost(WAIT)
        .pollInterval(POLL)
        .until(() -> !scrape(cluster.jobManager).contains(ofJob));
    await().atMost(WAIT).pollInterval(POLL).until(() -> !scrape(taskManager).contains(ofJob));
  }
}

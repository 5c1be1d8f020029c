package io.weir.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import io.weir.cluster.client.ClusterClient;
import io.weir.cluster.rpc.HostPort;
import io.weir.runtime.storage.FileSystems;
import io.weir.runtime.storage.ForwardingFileSystem;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Predicate;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The local session cluster of {@code weir run}: its REST API outlives the job it runs for as long
 * as a savepoint's outcome has not been sent, so that {@code weir stop}, which asks for the
 * savepoint's location after the stop has ended the job, gets it.
 *
 * <p>The tests of the default settings share one cluster (a cluster's REST server takes seconds to
 * shut down); each leaves it without a job running. Tests of other settings start their own.
 */
@Timeout(120)
class LocalSessionClusterTest {

  /** The cluster of the default settings, shared by the tests that need no other. */
  private static LocalSessionCluster shared;

  private static ClusterClient sharedClient;

  @TempDir Path dir;

  @BeforeAll
  static void startSharedCluster() throws Exception {
    shared = new LocalSessionCluster(Map.of());
    sharedClient =
        new ClusterClient(HostPort.parse("127.0.0.1:" + shared.restPort(), "address"), null);
  }

  @AfterAll
  static void stopSharedCluster() throws Exception {
    if (shared != null) {
      shared.close();
    }
  }

  /** A test leaves the shared cluster as it found it: no job still running or cancelling. */
  @AfterEach
  void awaitNoJobRunningOnTheSharedCluster() {
    await()
        .atMost(Duration.ofSeconds(60))
        .untilAsserted(
            () -> {
              for (JsonNode job : sharedClient.get("/jobs").path("jobs")) {
                assertThat(job.path("status").asText())
                    .as(job.toString())
                    .isIn("FINISHED", "CANCELED", "FAILED");
              }
            });
  }

  @Test
  void aStoppedJobsSavepointOutcomeIsServedAfterTheJobEnded() throws Exception {
    ClusterClient client = sharedClient;
    String jobId = runUntilACheckpoint(client, 1_000_000);

    String trigger = client.stopWithSavepoint(jobId, dir.resolve("savepoints").toString(), false);
    awaitFinished(client, jobId);
    assertThat(shared.awaitSavepointOutcomesSent(jobId, Duration.ZERO))
        .as("the job has ended, but nobody has been told where its savepoint is")
        .isFalse();

    String savepoint = client.awaitSavepoint(jobId, trigger, () -> {});
    assertThat(Files.exists(Path.of(URI.create(savepoint)).resolve("_metadata"))).isTrue();
    assertThat(shared.awaitSavepointOutcomesSent(jobId, Duration.ofSeconds(30))).isTrue();
  }

  @Test
  void aRelativeSavepointDirectoryIsRefusedNamingTheField() throws Exception {
    ClusterClient client = sharedClient;
    String jobId = runUntilACheckpoint(client, 1_000_000);

    assertThatThrownBy(() -> client.triggerSavepoint(jobId, "42"))
        .isInstanceOfSatisfying(
            ClusterClient.RefusedException.class, e -> assertThat(e.status()).isEqualTo(400))
        .hasMessageContaining("target-directory '42' is a relative path")
        .hasMessageContaining("execution.checkpointing.savepoint-dir");
    assertThatThrownBy(() -> client.stopWithSavepoint(jobId, "savepoints/here", false))
        .isInstanceOfSatisfying(
            ClusterClient.RefusedException.class, e -> assertThat(e.status()).isEqualTo(400))
        .hasMessageContaining("target-directory 'savepoints/here' is a relative path");
    assertThat(Path.of("42")).doesNotExist();
    assertThat(client.get("/jobs/" + jobId).path("state").asText()).isEqualTo("RUNNING");
    client.cancel(jobId);
  }

  @Test
  void pathsAClientNamesMustLieUnderTheConfiguredRootAndFlinksSavepointPathIsHonoured()
      throws Exception {
    Path root = Files.createDirectories(dir.resolve("allowed"));
    try (LocalSessionCluster cluster =
        new LocalSessionCluster(Map.of("security.rest.savepoint-root", root.toString()))) {
      ClusterClient client =
          new ClusterClient(HostPort.parse("127.0.0.1:" + cluster.restPort(), "address"), null);
      String jobId = runUntilACheckpoint(client, 1_000_000);

      assertThatThrownBy(() -> client.triggerSavepoint(jobId, dir.resolve("elsewhere").toString()))
          .hasMessageContaining("(403)")
          .hasMessageContaining("target-directory '" + dir.resolve("elsewhere") + "' is outside")
          .hasMessageContaining("security.rest.savepoint-root");
      assertThatThrownBy(() -> client.triggerSavepoint(jobId, root.resolve("../escape").toString()))
          .hasMessageContaining("(403)");
      String trigger = client.triggerSavepoint(jobId, root.resolve("sp").toString());
      String savepoint = client.awaitSavepoint(jobId, trigger, () -> {});
      client.cancel(jobId);
      String jarId = client.upload(TestCluster.testJobJar(dir.resolve("job2.jar"), null));
      List<String> args =
          List.of(
              dir.resolve("out2").toString(),
              "1000000",
              "10",
              dir.resolve("checkpoints2").toUri().toString(),
              "20");
      assertThatThrownBy(
              () ->
                  client.run(
                      jarId,
                      "io.weir.testjobs.KeyedCountJob",
                      args,
                      1,
                      Map.of("execution.state-recovery.path", dir.resolve("x").toString())))
          .hasMessageContaining("(403)")
          .hasMessageContaining("execution.state-recovery.path '" + dir.resolve("x") + "'");
      assertThatThrownBy(
              () ->
                  client.run(
                      jarId,
                      "io.weir.testjobs.KeyedCountJob",
                      args,
                      1,
                      Map.of("state.checkpoints.dir", "file:///tmp/weir-elsewhere")))
          .as("a deprecated name is held to the root as well")
          .hasMessageContaining("execution.checkpointing.dir 'file:///tmp/weir-elsewhere'");

      // Flink's run request names the savepoint to start from in savepointPath.
      String body =
          "{\"entryClass\": \"io.weir.testjobs.KeyedCountJob\", \"programArgsList\": [\""
              + String.join("\", \"", args)
              + "\"], \"savepointPath\": \""
              + savepoint
              + "\"}";
      HttpResponse<String> run =
          HttpClient.newHttpClient()
              .send(
                  HttpRequest.newBuilder(
                          URI.create(
                              "http://127.0.0.1:" + cluster.restPort() + "/jars/" + jarId + "/run"))
                      .POST(HttpRequest.BodyPublishers.ofString(body))
                      .header("Content-Type", "application/json")
                      .build(),
                  HttpResponse.BodyHandlers.ofString());
      assertThat(run.statusCode()).as(run.body()).isEqualTo(200);
      String resumed = RestJsonField.jobId(run.body());
      await()
          .atMost(Duration.ofSeconds(60))
          .until(
              () ->
                  client
                      .get("/jobs/" + resumed + "/checkpoints")
                      .path("latest")
                      .path("restored")
                      .path("is_savepoint")
                      .asBoolean());
      assertThat(
              client
                  .get("/jobs/" + resumed + "/checkpoints")
                  .path("latest")
                  .path("restored")
                  .path("external_path")
                  .asText()
                  .replaceAll("/$", ""))
          .isEqualTo(savepoint.replaceAll("/$", ""));
      client.cancel(resumed);
    }
  }

  @Test
  void theRestApiServesFlinksPathsForTheClusterAJobItsPlanAndItsCheckpoints() throws Exception {
    ClusterClient client = sharedClient;
    String jobId = runUntilACheckpoint(client, 1_000_000);

    JsonNode overview = client.get("/overview");
    assertThat(overview.path("jobs-running").asInt()).as(overview.toString()).isEqualTo(1);
    assertThat(overview.path("slots-total").asInt()).isPositive();
    assertThat(overview.has("flink-version")).isTrue();
    assertThat(client.get("/config").path("refresh-interval").asLong()).isPositive();
    assertThat(client.get("/openapi.json").path("paths").has("/jobs/{jobid}/plan")).isTrue();
    JsonNode settings = client.get("/jobmanager/config");
    assertThat(settings.isArray()).isTrue();
    settings.forEach(e -> assertThat(e.has("key") && e.has("value")).isTrue());
    assertThat(client.get("/jobmanager/metrics").toString())
        .contains("{\"id\":\"Status.JVM.Memory.Heap.Used\"}", "{\"id\":\"taskSlotsTotal\"}");
    JsonNode jobManager =
        client.get("/jobmanager/metrics?get=Status.JVM.Memory.Heap.Used,numRunningJobs,nope");
    assertThat(jobManager.size()).as("a name it has not is left out: %s", jobManager).isEqualTo(2);
    assertThat(Long.parseLong(jobManager.get(0).path("value").asText())).isPositive();
    assertThat(jobManager.get(1).path("value").asText()).isEqualTo("1");
    String taskManager =
        client.get("/taskmanagers").path("taskmanagers").get(0).path("id").asText();
    // As of the TaskManager's first heartbeat, within heartbeat.interval of its registration.
    await()
        .atMost(Duration.ofSeconds(30))
        .untilAsserted(
            () ->
                assertThat(
                        client
                            .get(
                                "/taskmanagers/"
                                    + taskManager
                                    + "/metrics?get=Status.JVM.Memory.Heap.Used")
                            .path(0)
                            .path("value")
                            .asLong())
                    .isPositive());
    assertThatThrownBy(() -> client.get("/taskmanagers/tm-nope/metrics"))
        .hasMessageContaining("No TaskManager tm-nope is registered");
    assertThat(client.get("/jobs/" + jobId + "/status").toString())
        .isEqualTo("{\"status\":\"RUNNING\"}");
    assertThatThrownBy(() -> client.get("/jobs/nojob/status")).hasMessageContaining("nojob");

    JsonNode jars = client.get("/jars");
    // The newest first: the jar this test uploaded (the upload directory may hold older ones).
    assertThat(jars.path("files").get(0).path("name").asText()).isEqualTo("job.jar");
    assertThat(jars.path("files").get(0).path("id").asText()).hasSize(64);

    JsonNode plan = client.get("/jobs/" + jobId + "/plan").path("plan");
    assertThat(plan.path("jid").asText()).isEqualTo(jobId);
    JsonNode nodes = plan.path("nodes");
    assertThat(nodes.size()).isGreaterThan(1);
    JsonNode last = nodes.get(nodes.size() - 1);
    assertThat(last.path("inputs").get(0).path("ship_strategy").asText()).isEqualTo("HASH");
    // As Flink's JobDetailsInfo, the job's details carry the same plan.
    JsonNode detailsPlan = client.get("/jobs/" + jobId).path("plan");
    assertThat(detailsPlan.path("jid").asText()).as(detailsPlan.toString()).isEqualTo(jobId);
    assertThat(detailsPlan.path("name").asText()).isEqualTo("keyed-count");
    assertThat(detailsPlan).isEqualTo(plan);

    JsonNode names = client.get("/jobs/" + jobId + "/metrics");
    assertThat(names.toString()).contains("{\"id\":\"numberOfCompletedCheckpoints\"}");
    JsonNode values =
        client.get("/jobs/" + jobId + "/metrics?get=numberOfCompletedCheckpoints,numRestarts");
    assertThat(values.get(0).path("id").asText()).isEqualTo("numberOfCompletedCheckpoints");
    assertThat(Long.parseLong(values.get(0).path("value").asText())).isPositive();
    assertThat(values.get(1).path("value").asText()).isEqualTo("0");
    assertThatThrownBy(() -> client.get("/jobs/" + jobId + "/metrics?get=nope"))
        .hasMessageContaining("has no metric 'nope'");

    JsonNode config = client.get("/jobs/" + jobId + "/config");
    assertThat(config.path("execution-config").path("job-parallelism").asInt()).isEqualTo(1);
    JsonNode checkpointing = client.get("/jobs/" + jobId + "/checkpoints/config");
    assertThat(checkpointing.path("mode").asText()).isEqualTo("exactly_once");
    assertThat(checkpointing.path("interval").asLong()).isEqualTo(300);
    assertThat(checkpointing.path("checkpoint_storage").asText()).contains("checkpoints");

    long id =
        client
            .get("/jobs/" + jobId + "/checkpoints")
            .path("latest")
            .path("completed")
            .path("id")
            .asLong();
    JsonNode details = client.get("/jobs/" + jobId + "/checkpoints/details/" + id);
    assertThat(details.path("id").asLong()).isEqualTo(id);
    assertThat(details.path("status").asText()).isEqualTo("COMPLETED");
    // The flight recorder: each subtask's acknowledgement, and what set the duration.
    long triggered = details.path("trigger_timestamp").asLong();
    JsonNode lanes = details.path("subtasks");
    assertThat(lanes.size()).as(details.toString()).isEqualTo(nodes.size());
    long lastAck = 0;
    for (JsonNode lane : lanes) {
      long ack = lane.path("ack_timestamp").asLong();
      assertThat(ack).as(lane.toString()).isGreaterThanOrEqualTo(triggered);
      assertThat(lane.path("end_to_end_duration").asLong()).isEqualTo(ack - triggered);
      lastAck = Math.max(lastAck, ack);
    }
    for (JsonNode lane : lanes) {
      assertThat(lane.path("files_written").asInt()).as(lane.toString()).isNotNegative();
    }
    // The exactly-once file sink commits once told of the completion: its lane gets that segment
    // when the subtask reports it, after the checkpoint completed; the source's never does.
    long completedAt = triggered + details.path("end_to_end_duration").asLong();
    await()
        .atMost(Duration.ofSeconds(30))
        .untilAsserted(
            () -> {
              JsonNode later = client.get("/jobs/" + jobId + "/checkpoints/details/" + id);
              for (JsonNode lane : later.path("subtasks")) {
                if (lane.path("task").asText().endsWith("Files")) {
                  JsonNode commit = lane.path("commit");
                  assertThat(commit.isObject()).as(later.toString()).isTrue();
                  assertThat(commit.path("notified_timestamp").asLong())
                      .isGreaterThanOrEqualTo(completedAt);
                  assertThat(commit.path("duration").asLong()).isNotNegative();
                  assertThat(commit.has("failure")).isFalse();
                } else {
                  assertThat(lane.has("commit")).as(lane.toString()).isFalse();
                }
              }
            });
    JsonNode critical = details.path("critical_path");
    assertThat(critical.path("phase").asText())
        .as(details.toString())
        .isIn("start_delay", "alignment", "sync", "async", "acknowledgement", "finalize", "commit");
    assertThat(critical.path("description").asText()).isNotEmpty();
    assertThat(critical.path("advice").asText()).isNotEmpty();
    String criticalVertex = critical.path("vertex_id").asText();
    JsonNode ofVertex =
        client.get("/jobs/" + jobId + "/checkpoints/details/" + id + "/subtasks/" + criticalVertex);
    assertThat(ofVertex.path("vertex_id").asText()).isEqualTo(criticalVertex);
    assertThat(ofVertex.path("subtasks").size()).isEqualTo(1);
    JsonNode criticalLane = ofVertex.path("subtasks").get(0);
    assertThat(criticalLane.path("ack_timestamp").asLong()).isEqualTo(lastAck);
    assertThat(criticalLane.path("task").asText()).isEqualTo(critical.path("task").asText());
    assertThatThrownBy(
            () -> client.get("/jobs/" + jobId + "/checkpoints/details/" + id + "/subtasks/99"))
        .hasMessageContaining("has no vertex '99'");
    assertThatThrownBy(() -> client.get("/jobs/" + jobId + "/checkpoints/details/999999"))
        .hasMessageContaining("has no statistics of checkpoint 999999");
    assertThatThrownBy(() -> client.get("/jobs/" + jobId + "/checkpoints/details/latest"))
        .hasMessageContaining("'latest' is no checkpoint id");
    assertThatThrownBy(() -> client.get("/taskmanagers/nobody"))
        .hasMessageContaining("No TaskManager nobody is registered");

    String trigger = client.triggerSavepoint(jobId, dir.resolve("sp").toString());
    client.awaitSavepoint(jobId, trigger, () -> {});
    JsonNode checkpoints = client.get("/jobs/" + jobId + "/checkpoints");
    JsonNode savepoint = checkpoints.path("latest").path("savepoint");
    assertThat(savepoint.path("is_savepoint").asBoolean()).as(checkpoints.toString()).isTrue();
    assertThat(savepoint.path("external_path").asText()).contains("sp");
    assertThat(checkpoints.path("latest").path("completed").path("is_savepoint").asBoolean())
        .isFalse();
    assertThat(checkpoints.path("summary").path("end_to_end_duration").path("max").asLong())
        .isGreaterThanOrEqualTo(
            checkpoints.path("summary").path("end_to_end_duration").path("min").asLong());
    client.cancel(jobId);
  }

  @Test
  void aRunningJobsVerticesServeTheirSubtasksCountersAndBackPressure() throws Exception {
    ClusterClient client = sharedClient;
    String jobId = runUntilACheckpoint(client, 1_000_000);

    JsonNode job = client.get("/jobs/" + jobId);
    assertThat(job.path("state").asText()).isEqualTo("RUNNING");
    JsonNode vertices = job.path("vertices");
    JsonNode plan = client.get("/jobs/" + jobId + "/plan").path("plan").path("nodes");
    assertThat(vertices.size()).as(job.toString()).isEqualTo(plan.size());
    JsonNode last = vertices.get(vertices.size() - 1);
    assertThat(last.path("id").asText()).isEqualTo(plan.get(plan.size() - 1).path("id").asText());
    assertThat(last.path("status").asText()).isEqualTo("RUNNING");
    assertThat(last.path("parallelism").asInt()).isEqualTo(1);
    assertThat(last.path("maxParallelism").asInt()).as("Count's own").isEqualTo(64);
    assertThat(vertices.get(0).path("maxParallelism").asInt()).as("the job's").isEqualTo(128);
    assertThat(last.path("start-time").asLong()).isPositive();
    assertThat(last.path("end-time").asLong()).isEqualTo(-1);
    assertThat(last.path("tasks").path("RUNNING").asInt()).isEqualTo(1);
    assertThat(last.path("tasks").has("CANCELING")).isTrue();
    assertThat(last.path("metrics").path("read-records-complete").asBoolean()).isTrue();
    assertThat(last.path("metrics").has("accumulated-busy-time")).isTrue();
    JsonNode first = vertices.get(0);
    assertThat(first.path("metrics").path("read-bytes").asLong())
        .as("a source reads no bytes of other subtasks: %s", first)
        .isZero();
    assertThat(first.path("metrics").path("read-bytes-complete").asBoolean()).isTrue();
    assertThat(first.path("metrics").path("write-bytes").asLong()).isPositive();
    assertThat(first.path("metrics").path("write-bytes-complete").asBoolean()).isTrue();
    assertThat(last.path("metrics").path("write-bytes").asLong())
        .as("the last vertex ends in a chained sink: %s", last)
        .isZero();
    assertThat(last.path("metrics").path("write-bytes-complete").asBoolean()).isTrue();
    assertThat(job.path("status-counts").path("RUNNING").asInt()).isEqualTo(vertices.size());
    assertThat(job.path("timestamps").path("RUNNING").asLong()).isPositive();
    assertThat(job.path("timestamps").path("FINISHED").asLong()).isZero();
    assertThat(job.has("exceptions")).as("the existing fields stay").isTrue();

    String vertex = "/jobs/" + jobId + "/vertices/" + last.path("id").asText();
    long before =
        client.get(vertex).path("subtasks").get(0).path("metrics").path("read-records").asLong();
    await()
        .atMost(Duration.ofSeconds(30))
        .untilAsserted(
            () -> {
              JsonNode details = client.get(vertex);
              assertThat(details.path("name").asText()).isEqualTo(last.path("name").asText());
              assertThat(details.path("maxParallelism").asInt()).isEqualTo(64);
              assertThat(details.path("now").asLong()).isPositive();
              JsonNode subtask = details.path("subtasks").get(0);
              assertThat(subtask.path("subtask").asInt()).isZero();
              assertThat(subtask.path("status").asText()).isEqualTo("RUNNING");
              assertThat(subtask.path("endpoint").asText()).startsWith("127.0.0.1:");
              assertThat(subtask.path("host").asText())
                  .isEqualTo(subtask.path("endpoint").asText());
              assertThat(subtask.path("start-time").asLong()).isPositive();
              assertThat(subtask.path("duration").asLong()).isNotNegative();
              assertThat(subtask.path("metrics").path("read-records").asLong())
                  .as("records keep coming in")
                  .isGreaterThan(before);
              // 12 bytes a record (its header and a Long), sampled after the records: at least
              // that, and at most the buffers taken since or not yet read to the end more.
              long records = subtask.path("metrics").path("read-records").asLong();
              assertThat(subtask.path("metrics").path("read-bytes").asLong())
                  .as(subtask.toString())
                  .isBetween(12 * records, 12 * records + (1 << 20));
              assertThat(subtask.path("metrics").path("read-bytes-complete").asBoolean()).isTrue();
            });

    JsonNode pressure = client.get(vertex + "/backpressure");
    assertThat(pressure.path("status").asText()).isEqualTo("ok");
    assertThat(pressure.path("backpressure-level").asText()).isIn("ok", "low", "high");
    assertThat(pressure.path("end-timestamp").asLong()).isPositive();
    JsonNode share = pressure.path("subtasks").get(0);
    assertThat(share.path("subtask").asInt()).isZero();
    assertThat(share.path("backpressure-level").asText()).isIn("ok", "low", "high");
    double sum =
        share.path("ratio").asDouble()
            + share.path("idleRatio").asDouble()
            + share.path("busyRatio").asDouble();
    assertThat(sum).as(share.toString()).isCloseTo(1.0, org.assertj.core.data.Offset.offset(0.01));

    assertThatThrownBy(() -> client.get("/jobs/" + jobId + "/vertices/99"))
        .hasMessageContaining("has no vertex '99'")
        .hasMessageContaining("0 to " + (vertices.size() - 1));
    assertThatThrownBy(() -> client.get("/jobs/" + jobId + "/vertices/x/backpressure"))
        .hasMessageContaining("has no vertex 'x'");
    assertThatThrownBy(() -> client.get("/jobs/nojob/vertices/0")).hasMessageContaining("nojob");
    client.cancel(jobId);
  }

  /**
   * A vertex serves its subtasks' task metrics and its functions' own as Flink's REST API does: per
   * subtask ({@code 0.numRecordsIn}, {@code 0.Count.countedRecords}), aggregated over the subtasks,
   * and for one subtask; a name no subtask has is left out, a bad aggregation is 400 and an unknown
   * subtask 404, each naming what is wrong.
   */
  @Test
  void aVertexServesItsSubtasksMetricsAndItsFunctionsOwnAsFlinksRestApiDoes() throws Exception {
    ClusterClient client = sharedClient;
    String jobId = runUntilACheckpoint(client, 1_000_000);
    JsonNode vertices = client.get("/jobs/" + jobId).path("vertices");
    String vertex =
        "/jobs/" + jobId + "/vertices/" + vertices.get(vertices.size() - 1).path("id").asText();

    List<String> names = new ArrayList<>();
    client.get(vertex + "/metrics").forEach(m -> names.add(m.path("id").asText()));
    assertThat(names)
        .contains(
            "0.numRecordsIn",
            "0.numRecordsOut",
            "0.numBytesIn",
            "0.numRecordsInPerSecond",
            "0.busyTimeMsPerSecond",
            "0.accumulatedBusyTimeMs",
            "0.currentInputWatermark",
            "0.Count.countedRecords");

    long first = counted(client.get(vertex + "/metrics?get=0.Count.countedRecords,0.nothing"));
    await()
        .atMost(Duration.ofSeconds(30))
        .untilAsserted(
            () ->
                assertThat(counted(client.get(vertex + "/metrics?get=0.Count.countedRecords")))
                    .as("the function's counter goes on counting")
                    .isGreaterThan(first));

    JsonNode aggregated =
        client.get(vertex + "/subtasks/metrics?get=numRecordsIn,Count.countedRecords&agg=sum,max");
    assertThat(aggregated.size()).as(aggregated.toString()).isEqualTo(2);
    for (JsonNode metric : aggregated) {
      assertThat(metric.path("sum").asDouble()).as(metric.toString()).isPositive();
      assertThat(metric.path("max").asDouble()).isEqualTo(metric.path("sum").asDouble());
      assertThat(metric.has("min")).as("only the aggregations asked for").isFalse();
    }
    List<String> subtaskNames = new ArrayList<>();
    client
        .get(vertex + "/subtasks/0/metrics")
        .forEach(m -> subtaskNames.add(m.path("id").asText()));
    assertThat(subtaskNames).contains("numRecordsIn", "Count.countedRecords");
    assertThat(counted(client.get(vertex + "/subtasks/0/metrics?get=Count.countedRecords")))
        .isPositive();

    assertThatThrownBy(() -> client.get(vertex + "/subtasks/metrics?get=numRecordsIn&agg=median"))
        .hasMessageContaining("'agg' has 'median'")
        .hasMessageContaining("min, max, avg, sum, skew");
    assertThatThrownBy(() -> client.get(vertex + "/subtasks/metrics?get=numRecordsIn&subtasks=2-1"))
        .hasMessageContaining("'2-1', which ends before it starts");
    assertThatThrownBy(() -> client.get(vertex + "/subtasks/1/metrics"))
        .hasMessageContaining("has no subtask '1'")
        .hasMessageContaining("0 to 0");
    client.cancel(jobId);
  }

  /** The value of the only metric of an answer, {@code [{"id", "value"}]}. */
  private static long counted(JsonNode answer) {
    assertThat(answer.size()).as(answer.toString()).isEqualTo(1);
    return answer.get(0).path("value").asLong();
  }

  /**
   * A job resumed from a savepoint shows its restore while it runs: its keyed subtask is
   * INITIALIZING, {@code /recovery} and the vertex's subtask say how many bytes and files of how
   * many it has read, and once the reads go on it is RUNNING with everything read.
   */
  @Test
  void aResumedJobShowsHowFarItsRestoreHasComeUntilItRuns() throws Exception {
    HeldReads reads = new HeldReads("held-restore");
    FileSystems.register("held-restore", reads);
    try {
      ClusterClient client = sharedClient;
      // Every piece of state in a file of its own: a restore with files to count.
      Map<String, String> inFiles = Map.of("execution.checkpointing.data-inline-threshold", "0");
      String first = runUntilACheckpoint(client, 1_000_000, "held-restore://" + dir, inFiles);
      long written =
          client
              .get("/jobs/" + first + "/checkpoints")
              .path("latest")
              .path("completed")
              .path("id")
              .asLong();
      for (JsonNode lane :
          client.get("/jobs/" + first + "/checkpoints/details/" + written).path("subtasks")) {
        // The source's splits and the count's keyed state, each in a file of its own.
        assertThat(lane.path("files_written").asInt()).as(lane.toString()).isPositive();
      }
      String trigger =
          client.stopWithSavepoint(first, "held-restore://" + dir.resolve("savepoints"), false);
      String savepoint = client.awaitSavepoint(first, trigger, () -> {});
      awaitFinished(client, first);
      // The keyed subtask's own reads wait; the job master's checks of the files do not.
      reads.hold(path -> Thread.currentThread().getName().startsWith("Count"));

      Map<String, String> resume = new java.util.HashMap<>(inFiles);
      resume.put("execution.state-recovery.path", savepoint);
      String second = submit(client, 1_000_000, "held-restore://" + dir.resolve("again"), resume);
      reads.awaitHeld();

      JsonNode restoring = client.get("/jobs/" + second + "/recovery");
      assertThat(restoring.path("status").asText()).as(restoring.toString()).isEqualTo("RESTORING");
      long checkpointId = restoring.path("checkpoint-id").asLong();
      JsonNode total = restoring.path("total");
      assertThat(total.path("bytes-total").asLong()).isPositive();
      assertThat(total.path("bytes-read").asLong()).isLessThan(total.path("bytes-total").asLong());
      assertThat(total.path("files-total").asLong()).isPositive();
      assertThat(total.path("done").asBoolean()).isFalse();
      assertThat(total.path("records-replayed").isNumber()).as(total.toString()).isTrue();
      JsonNode count = subtaskOf(restoring, "Count");
      assertThat(count.path("status").asText()).isEqualTo("INITIALIZING");
      assertThat(count.path("restore").path("done").asBoolean()).isFalse();
      JsonNode vertices = client.get("/jobs/" + second).path("vertices");
      JsonNode countVertex = vertices.get(vertices.size() - 1);
      assertThat(countVertex.path("status").asText()).isEqualTo("INITIALIZING");
      JsonNode subtask =
          client
              .get("/jobs/" + second + "/vertices/" + countVertex.path("id").asText())
              .path("subtasks")
              .get(0);
      assertThat(subtask.path("status").asText()).isEqualTo("INITIALIZING");
      assertThat(subtask.path("restore").path("bytes-total").asLong())
          .isEqualTo(count.path("restore").path("bytes-total").asLong());

      reads.release();
      await()
          .atMost(Duration.ofSeconds(60))
          .untilAsserted(
              () -> {
                JsonNode restored = client.get("/jobs/" + second + "/recovery");
                assertThat(restored.path("status").asText())
                    .as(restored.toString())
                    .isEqualTo("RESTORED");
                assertThat(restored.path("checkpoint-id").asLong()).isEqualTo(checkpointId);
                JsonNode all = restored.path("total");
                assertThat(all.path("bytes-read").asLong())
                    .isEqualTo(all.path("bytes-total").asLong());
                assertThat(all.path("files-read").asLong())
                    .isEqualTo(all.path("files-total").asLong());
                assertThat(all.path("estimated-time-left").asLong()).isZero();
                assertThat(all.path("records-replayed").asLong())
                    .as("a savepoint is aligned: it holds no in-flight data to replay")
                    .isZero();
                assertThat(subtaskOf(restored, "Count").path("status").asText())
                    .isEqualTo("RUNNING");
              });
      client.cancel(second);
    } finally {
      reads.release();
      FileSystems.unregister("held-restore");
    }
  }

  /**
   * {@code GET /taskmanagers/:id} serves one TaskManager with Flink's fields: its id, control
   * address and data port, its slots and free slots, its hardware, and the tasks it runs.
   */
  @Test
  void aTaskManagerIsServedByItsIdWithFlinksFields() throws Exception {
    ClusterClient client = sharedClient;
    String jobId = runUntilACheckpoint(client, 1_000_000);
    JsonNode listed = client.get("/taskmanagers").path("taskmanagers");
    assertThat(listed.size()).as(listed.toString()).isEqualTo(1);
    String id = listed.get(0).path("id").asText();

    // As of its heartbeat after the job's tasks started, within heartbeat.interval.
    await()
        .atMost(Duration.ofSeconds(30))
        .untilAsserted(
            () -> {
              JsonNode tm = client.get("/taskmanagers/" + id);
              assertThat(tm.path("id").asText()).as(tm.toString()).isEqualTo(id);
              assertThat(tm.path("tasks").toString()).contains(jobId);
              assertThat(tm.path("loadedJobs").toString()).contains(jobId);
              assertThat(tm.path("slotsNumber").asInt()).as("the local cluster's").isEqualTo(1024);
              assertThat(tm.path("freeSlots").asInt())
                  .as("the job of parallelism 1 holds one slot, an ended job's are free")
                  .isEqualTo(1023);
              // The TaskManager runs in this JVM.
              JsonNode hardware = tm.path("hardware");
              assertThat(hardware.path("cpuCores").asInt())
                  .as(hardware.toString())
                  .isEqualTo(Runtime.getRuntime().availableProcessors());
              assertThat(hardware.path("physicalMemory").asLong()).isPositive();
              assertThat(hardware.path("freeMemory").asLong())
                  .isEqualTo(Runtime.getRuntime().maxMemory());
              assertThat(hardware.path("managedMemory").asLong()).isZero();
            });
    JsonNode tm = client.get("/taskmanagers/" + id);
    Map<String, java.net.InetSocketAddress> bound = shared.boundAddresses();
    assertThat(tm.path("path").asText())
        .isEqualTo("127.0.0.1:" + bound.get("TaskManager control").getPort());
    assertThat(tm.path("dataPort").asInt()).isEqualTo(bound.get("TaskManager data").getPort());
    client.cancel(jobId);
  }

  /**
   * Everything binds 127.0.0.1 unless configured: with the default settings, no port of the
   * JobManager or the TaskManager is open to the network.
   */
  @Test
  void withDefaultSettingsEveryPortIsBoundToTheLoopbackAddressOnly() {
    Map<String, java.net.InetSocketAddress> bound = shared.boundAddresses();
    assertThat(bound)
        .containsOnlyKeys(
            "JobManager REST", "JobManager control", "TaskManager control", "TaskManager data");
    bound.forEach(
        (port, address) ->
            assertThat(address.getAddress().getHostAddress())
                .as("%s bound to %s", port, address)
                .isEqualTo("127.0.0.1"));
    assertThat(bound.get("JobManager REST").getPort()).isEqualTo(shared.restPort());
  }

  /**
   * A checkpoint that fails for a known reason, a state file its storage refuses to write once,
   * shows in REST while the job runs on: counted as failed, the latest failure with its id and a
   * message naming the cause, its details, and a newer completed checkpoint after it. The job
   * tolerates the one failure ({@code execution.checkpointing.tolerable-failed-checkpoints}), so it
   * does not restart.
   */
  @Test
  void aFailedCheckpointIsServedWithItsCauseAndLaterCheckpointsComplete() throws Exception {
    FailingWrites writes = new FailingWrites("failing-writes");
    FileSystems.register("failing-writes", writes);
    try {
      ClusterClient client = sharedClient;
      // Every piece of state in a file of its own, written by the subtasks: a write to refuse.
      Map<String, String> settings =
          Map.of(
              "execution.checkpointing.data-inline-threshold", "0",
              "execution.checkpointing.tolerable-failed-checkpoints", "1");
      String jobId =
          runUntilACheckpoint(
              client, 1_000_000, "failing-writes://" + dir.resolve("checkpoints"), settings);
      writes.failNextStateFile();
      String checkpoints = "/jobs/" + jobId + "/checkpoints";
      await()
          .atMost(Duration.ofSeconds(60))
          .until(() -> client.get(checkpoints).path("counts").path("failed").asLong() >= 1);
      assertThat(writes.refused()).as("the failure is the one injected").isNotNull();
      JsonNode failed = client.get(checkpoints).path("latest").path("failed");
      long failedId = failed.path("id").asLong();
      assertThat(failed.path("status").asText()).as(failed.toString()).isEqualTo("FAILED");
      assertThat(failed.path("failure_message").asText())
          .containsPattern("declined by '[^']+' \\(\\d+/\\d+\\)")
          .contains("injected failure writing " + writes.refused())
          .as("the subtask and the failure as the user knows them, not their carriers")
          .doesNotContain("TaskKey")
          .doesNotContain("RemoteFailure");

      JsonNode details = client.get("/jobs/" + jobId + "/checkpoints/details/" + failedId);
      assertThat(details.path("id").asLong()).as(details.toString()).isEqualTo(failedId);
      assertThat(details.path("status").asText()).isEqualTo("FAILED");
      assertThat(details.path("failure_message").asText())
          .isEqualTo(failed.path("failure_message").asText());

      await()
          .atMost(Duration.ofSeconds(60))
          .untilAsserted(
              () -> {
                JsonNode later = client.get(checkpoints);
                assertThat(later.path("latest").path("completed").path("id").asLong())
                    .as(later.toString())
                    .isGreaterThan(failedId);
              });
      assertThat(
              client
                  .get("/jobs/" + jobId + "/metrics?get=numRestarts")
                  .get(0)
                  .path("value")
                  .asText())
          .as("the one failure is tolerated")
          .isEqualTo("0");
      assertThat(client.get("/jobs/" + jobId).path("state").asText()).isEqualTo("RUNNING");
      client.cancel(jobId);
    } finally {
      FileSystems.unregister("failing-writes");
    }
  }

  /** The local file system under a scheme of its own that refuses one state file when told to. */
  private static final class FailingWrites extends ForwardingFileSystem {
    private static final Pattern STATE_FILE = Pattern.compile(".*/chk-\\d+/[^_/][^/]*");
    private final AtomicBoolean armed = new AtomicBoolean();
    private volatile String refused;

    FailingWrites(String scheme) {
      super(scheme);
    }

    /** The next state file a subtask writes into a checkpoint's directory fails to be written. */
    void failNextStateFile() {
      armed.set(true);
    }

    /** The path refused, or null while none was. */
    String refused() {
      return refused;
    }

    @Override
    public OutputStream create(String path, boolean overwrite) throws IOException {
      if (STATE_FILE.matcher(path).matches() && armed.compareAndSet(true, false)) {
        refused = path;
        throw new IOException("injected failure writing " + path);
      }
      return super.create(path, overwrite);
    }
  }

  /**
   * A vertex's watermarks as Flink serves them: a keyed vertex's subtasks carry their inputs'
   * watermark, which follows the source's timestamps; a source has none.
   */
  @Test
  void aVertexServesItsSubtasksInputWatermarksAsFlinksRestApiDoes() throws Exception {
    ClusterClient client = sharedClient;
    Path jar = dir.resolve("job.jar");
    String jarId = client.upload(TestCluster.testJobJar(jar, null));
    String jobId =
        client.run(jarId, "io.weir.testjobs.EventTimeJob", List.of("1000000", "20"), 2, Map.of());
    String keyed = "/jobs/" + jobId + "/vertices/1/watermarks";
    long[] seen = new long[1];
    await()
        .atMost(Duration.ofSeconds(60))
        .untilAsserted(
            () -> {
              JsonNode watermarks = client.get(keyed);
              assertThat(watermarks.size()).as(watermarks.toString()).isEqualTo(2);
              for (int i = 0; i < 2; i++) {
                assertThat(watermarks.get(i).path("id").asText())
                    .isEqualTo(i + ".currentInputWatermark");
                assertThat(watermarks.get(i).path("value").asLong())
                    .as("the records' timestamps are 1 to 1 000 000")
                    .isBetween(1L, 1_000_000L);
              }
              seen[0] = watermarks.get(0).path("value").asLong();
            });
    await()
        .atMost(Duration.ofSeconds(60))
        .until(() -> client.get(keyed).get(0).path("value").asLong() > seen[0]);
    JsonNode source = client.get("/jobs/" + jobId + "/vertices/0/watermarks");
    assertThat(source.get(0).path("value").asLong())
        .as("a source has no input watermark")
        .isEqualTo(Long.MIN_VALUE);
    client.cancel(jobId);
  }

  private static JsonNode subtaskOf(JsonNode recovery, String vertexNamePrefix) {
    for (JsonNode s : recovery.path("subtasks")) {
      if (s.path("vertex-name").asText().startsWith(vertexNamePrefix)) {
        return s;
      }
    }
    throw new AssertionError("no subtask of " + vertexNamePrefix + " in " + recovery);
  }

  /** The local file system under a scheme of its own whose reads a test can hold. */
  private static final class HeldReads extends ForwardingFileSystem {
    private volatile Predicate<String> held = path -> false;
    private final CountDownLatch heldOne = new CountDownLatch(1);
    private final CountDownLatch released = new CountDownLatch(1);

    HeldReads(String scheme) {
      super(scheme);
    }

    /** From now on, reads of the paths {@code held} accepts wait for {@link #release}. */
    void hold(Predicate<String> held) {
      this.held = held;
    }

    void awaitHeld() throws InterruptedException {
      assertThat(heldOne.await(60, TimeUnit.SECONDS)).as("a read was held").isTrue();
    }

    void release() {
      held = path -> false;
      released.countDown();
    }

    @Override
    public InputStream open(String path) throws IOException {
      if (held.test(path)) {
        heldOne.countDown();
        try {
          released.await();
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new java.io.InterruptedIOException("interrupted while held: " + path);
        }
      }
      return super.open(path);
    }
  }

  @Test
  void aJobsEndTimeAndDurationAreServedAsFlinksAre() throws Exception {
    ClusterClient client = sharedClient;
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

  @Test
  void oneEndpointServesTheMetricsOfBothRolesWhenAPortIsSet() throws Exception {
    assertThat(shared.metricsPort()).as("no port set: no endpoint").isEqualTo(-1);
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
          .contains("weir_taskmanager_job_task_numBytesIn{job_id=\"" + jobId + "\"")
          .contains("weir_taskmanager_job_task_numBytesOut{job_id=\"" + jobId + "\"")
          .contains("weir_taskmanager_job_task_numBytesInPerSecond{job_id=\"" + jobId + "\"")
          .contains("weir_taskmanager_job_task_numBytesOutPerSecond{job_id=\"" + jobId + "\"")
          .contains("weir_taskmanager_job_task_operator_countedRecords{job_id=\"" + jobId + "\"")
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
    return runUntilACheckpoint(
        client, records, dir.resolve("checkpoints").toUri().toString(), Map.of());
  }

  /** The same, with its checkpoints in {@code storage} and the job's {@code settings}. */
  private String runUntilACheckpoint(
      ClusterClient client, long records, String storage, Map<String, String> settings)
      throws Exception {
    String jobId = submit(client, records, storage, settings);
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

  /** Reads the job id out of a run's answer. */
  private static final class RestJsonField {
    static String jobId(String json) throws Exception {
      return new com.fasterxml.jackson.databind.ObjectMapper()
          .readTree(json)
          .path("jobid")
          .asText();
    }
  }

  /** Submits {@code KeyedCountJob} (see {@link #runUntilACheckpoint}); returns its id. */
  private String submit(
      ClusterClient client, long records, String storage, Map<String, String> settings)
      throws Exception {
    Path jar = dir.resolve("job.jar");
    String jarId = client.upload(Files.exists(jar) ? jar : TestCluster.testJobJar(jar, null));
    return client.run(
        jarId,
        "io.weir.testjobs.KeyedCountJob",
        List.of(dir.resolve("out").toString(), Long.toString(records), "10", storage, "20"),
        1,
        settings);
  }

  private static void awaitFinished(ClusterClient client, String jobId) {
    await()
        .atMost(Duration.ofSeconds(60))
        .until(() -> client.get("/jobs/" + jobId).path("state").asText().equals("FINISHED"));
  }
}

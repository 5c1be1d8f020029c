package io.weir.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Savepoints through the JobManager's REST API ({@code POST /jobs/:id/savepoints}, {@code POST
 * /jobs/:id/stop}, {@code GET /jobs/:id/savepoints/:triggerid}) on a cluster of real processes: a
 * job stopped with a savepoint commits what its exactly-once file sink wrote up to the savepoint,
 * and resumed from it ends with every key's counts exactly once.
 */
@Timeout(300)
class ClusterSavepointIT {

  private static TestCluster cluster;
  private static String jarId;

  @BeforeAll
  static void startCluster() throws Exception {
    cluster = new TestCluster("savepoints", Map.of(ClusterOptions.HEARTBEAT_INTERVAL.key(), "500"));
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

  private static String runKeyedCount(Path out, long n, Map<String, String> settings)
      throws Exception {
    return cluster.runKeyedCount(jarId, out, n, "checkpoints", 20, settings);
  }

  @Test
  void stopWithSavepointCommitsTheSinkAndTheResumedJobEndsExactlyOnce() throws Exception {
    long n = 100_000;
    Path out = cluster.dir.resolve("out-stop");
    String savepoints = cluster.dir.resolve("savepoints").toString();
    String jobId = runKeyedCount(out, n, Map.of());
    await()
        .atMost(Duration.ofSeconds(60))
        .until(() -> Files.isDirectory(out) && !TestCluster.committedLines(out).isEmpty());

    String trigger = cluster.client.triggerSavepoint(jobId, savepoints);
    JsonNode status = cluster.client.get("/jobs/" + jobId + "/savepoints/" + trigger);
    assertThat(status.path("status").path("id").asText()).isIn("IN_PROGRESS", "COMPLETED");
    String savepoint = cluster.client.awaitSavepoint(jobId, trigger, () -> {});
    assertThat(Path.of(URI.create(savepoint)).resolve("_metadata")).exists();
    assertThat(cluster.jobState(jobId)).isEqualTo("RUNNING");

    String stopped =
        cluster.client.awaitSavepoint(
            jobId, cluster.client.stopWithSavepoint(jobId, savepoints, false), () -> {});
    assertThat(cluster.jobState(jobId)).isEqualTo("FINISHED");
    List<String> before = TestCluster.committedLines(out);
    assertThat(before.size()).as("stopped before the end").isLessThan((int) n);

    String resumed = runKeyedCount(out, n, Map.of("execution.state-recovery.path", stopped));
    await()
        .atMost(Duration.ofSeconds(120))
        .until(() -> cluster.jobState(resumed).equals("FINISHED"));

    TestCluster.assertKeyedCountExactlyOnce(out, n);
  }

  @Test
  void aSavepointThatCannotBeWrittenFailsItsTriggerAndTheJobRunsOn() throws Exception {
    Path out = cluster.dir.resolve("out-failing");
    String jobId = runKeyedCount(out, 1_000_000, Map.of());
    await().atMost(Duration.ofSeconds(60)).until(() -> cluster.jobState(jobId).equals("RUNNING"));
    Path blocked = Files.writeString(cluster.dir.resolve("a-file"), "not a directory");

    String trigger =
        cluster.client.stopWithSavepoint(jobId, blocked.resolve("x").toString(), false);
    assertThatThrownBy(() -> cluster.client.awaitSavepoint(jobId, trigger, () -> {}))
        .hasMessageContaining("failed")
        .hasMessageContaining("a-file");
    assertThat(cluster.jobState(jobId)).isEqualTo("RUNNING");
    assertThatThrownBy(() -> cluster.client.get("/jobs/" + jobId + "/savepoints/nosuchtrigger"))
        .hasMessageContaining("nosuchtrigger");
    cluster.client.cancel(jobId);
    await().atMost(Duration.ofSeconds(60)).until(() -> cluster.jobState(jobId).equals("CANCELED"));
  }
}

package io.weir.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A JobManager and three one-slot TaskManagers as real processes, so that every attempt of a job of
 * parallelism 2 spans two of them and its keyed exchange crosses the data plane: a keyed count into
 * an exactly-once file sink survives SIGKILL of a TaskManager running it, three times, with exact
 * counts and output; a cancelled job leaves no task and no class loader on any TaskManager.
 */
class ClusterRecoveryIT {

  private static TestCluster cluster;
  private static String jarId;

  @BeforeAll
  static void startCluster() throws Exception {
    cluster =
        new TestCluster(
            "recovery",
            Map.of(
                ClusterOptions.HEARTBEAT_INTERVAL.key(), "250",
                ClusterOptions.HEARTBEAT_TIMEOUT.key(), "3000",
                ClusterOptions.SLOT_REQUEST_TIMEOUT.key(), "60000"));
    cluster.startJobManager();
    cluster.startTaskManagers(3, 1);
    jarId = cluster.client.upload(TestCluster.testJobJar(cluster.dir.resolve("job.jar"), null));
  }

  @AfterAll
  static void stopCluster() {
    if (cluster != null) {
      cluster.close();
    }
  }

  private static String runKeyedCount(Path out, long n, int every) throws Exception {
    return cluster.runKeyedCount(jarId, out, n, "checkpoints", every, Map.of());
  }

  @ParameterizedTest(name = "{0} checkpoints")
  @ValueSource(strings = {"aligned", "unaligned"})
  void keyedCountSurvivesThreeKillsOfItsTaskManager(String alignment) throws Exception {
    Path out = cluster.dir.resolve("out-kills-" + alignment);
    // About as many numbers as the job reads while the three kills take their turns here, so that
    // records are in flight at each; the gate keeps the job from ending before the third however
    // slow the machine is.
    long n = 40_000;
    Path gate = cluster.dir.resolve("out-kills-" + alignment + ".gate");
    List<String> args =
        new ArrayList<>(TestCluster.keyedCountArgs(out, n, cluster.dir.resolve("checkpoints"), 3));
    args.add(gate.toString());
    String jobId =
        cluster.client.run(
            jarId,
            "io.weir.testjobs.KeyedCountJob",
            args,
            2,
            Map.of(
                "execution.checkpointing.unaligned.enabled",
                String.valueOf(alignment.equals("unaligned"))));
    cluster.killHostOfTimes(jobId, 3, gate);
    JsonNode job = cluster.awaitEnded(jobId);
    assertThat(job.path("state").asText()).as(job.toString()).isEqualTo("FINISHED");
    assertThat(job.path("metrics").path("job.restarts").asLong()).isGreaterThanOrEqualTo(3);
    assertThat(cluster.exceptionMessages(jobId).stream().filter(m -> m.contains("was lost")))
        .hasSizeGreaterThanOrEqualTo(3);
    assertThat(cluster.jobManager.log())
        .contains("keeps checkpoints at file:///")
        .contains("a local file system: every TaskManager must see the same directory");

    // Exactly once: every key's counts 1..total, each line once.
    TestCluster.assertKeyedCountExactlyOnce(out, n);
    JsonNode history = cluster.client.get("/jobs/" + jobId + "/checkpoints").path("history");
    if (alignment.equals("unaligned")) {
      assertThat(history.toString()).contains("\"is_unaligned\":true");
    }
    // The file sink's commits, reported by the TaskManagers after each completion (a subtask
    // reports before it ends, so the final checkpoint's are in too).
    List<JsonNode> commits = new ArrayList<>();
    for (JsonNode checkpoint : history) {
      for (JsonNode lane : checkpoint.path("subtasks")) {
        if (lane.path("task").asText().endsWith("Files") && lane.has("commit")) {
          commits.add(lane.path("commit"));
        }
      }
    }
    assertThat(commits).as(history.toString()).isNotEmpty();
    assertThat(commits).allMatch(c -> c.path("duration").asLong() >= 0 && !c.has("failure"));
  }

  @Test
  void cancelLeavesNoTaskAndNoClassLoaderOnAnyTaskManager() throws Exception {
    String jobId = runKeyedCount(cluster.dir.resolve("out-cancel"), 10_000_000, 1);
    cluster.hostOf(jobId);
    cluster.client.cancel(jobId);
    await()
        .atMost(Duration.ofSeconds(60))
        .pollInterval(Duration.ofMillis(100))
        .until(() -> cluster.jobState(jobId).equals("CANCELED"));
    await()
        .atMost(Duration.ofSeconds(30))
        .pollInterval(Duration.ofMillis(100))
        .untilAsserted(
            () -> {
              for (JsonNode tm : cluster.client.get("/taskmanagers").path("taskmanagers")) {
                assertThat(tm.path("tasks").toString()).doesNotContain(jobId);
                assertThat(tm.path("loadedJobs").toString()).doesNotContain(jobId);
                assertThat(tm.path("freeSlots").asInt()).isEqualTo(tm.path("slotsNumber").asInt());
              }
            });
  }

  @Test
  void aTaskManagerSilentForTheHeartbeatTimeoutIsLostAndCancelsItsTasksWhenItWakes()
      throws Exception {
    String jobId = runKeyedCount(cluster.dir.resolve("out-silent"), 10_000_000, 1);
    TestCluster.Node silent = cluster.hostOf(jobId);
    TestCluster.signal("STOP", silent);
    try {
      // Its connection stays open: only the heartbeat timeout can tell it is gone.
      await()
          .atMost(Duration.ofSeconds(60))
          .pollInterval(Duration.ofMillis(100))
          .until(
              () ->
                  cluster
                      .client
                      .get("/jobs/" + jobId + "/exceptions")
                      .toString()
                      .contains("no heartbeat for"));
      TestCluster.Node replacement = cluster.hostOf(jobId);
      assertThat(replacement).isNotSameAs(silent);
      await()
          .atMost(Duration.ofSeconds(60))
          .pollInterval(Duration.ofMillis(100))
          .until(
              () ->
                  cluster.jobState(jobId).equals("RUNNING")
                      && cluster.completedCheckpoints(jobId) > 0);
    } finally {
      TestCluster.signal("CONT", silent);
    }
    // Awake again, it cancels the old tasks (no other JobManager could adopt them without high
    // availability) and registers again. Which of its two checks tells it first is a race, and
    // either is right: its first heartbeat's answer that the JobManager does not know it any more,
    // or its own watchdog, which finds nothing heard from the JobManager for longer than the
    // heartbeat timeout it slept through.
    silent.awaitLog(
        Pattern.compile(
            "does not know this TaskManager \\(any more\\): registering again"
                + "|is lost: nothing heard for \\d+ ms .*; registering again"),
        Duration.ofSeconds(60));
    await()
        .atMost(Duration.ofSeconds(60))
        .pollInterval(Duration.ofMillis(100))
        .untilAsserted(
            () -> {
              JsonNode status = cluster.taskManager(silent.id);
              assertThat(status).isNotNull();
              assertThat(status.path("tasks").toString()).doesNotContain(jobId);
              assertThat(status.path("loadedJobs").toString()).doesNotContain(jobId);
            });
    cluster.client.cancel(jobId);
    await()
        .atMost(Duration.ofSeconds(60))
        .pollInterval(Duration.ofMillis(100))
        .until(() -> cluster.jobState(jobId).equals("CANCELED"));
  }
}

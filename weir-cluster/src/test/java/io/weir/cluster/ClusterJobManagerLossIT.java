package io.weir.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A TaskManager whose JobManager is killed cancels the tasks it runs (no orphan keeps writing) and
 * keeps trying to register, with backoff, instead of exiting.
 */
class ClusterJobManagerLossIT {

  private static TestCluster cluster;

  @BeforeAll
  static void startCluster() throws Exception {
    cluster =
        new TestCluster(
            "jmloss",
            Map.of(
                ClusterOptions.HEARTBEAT_INTERVAL.key(), "250",
                ClusterOptions.HEARTBEAT_TIMEOUT.key(), "2000"));
    cluster.startJobManager();
    cluster.startTaskManager(2);
  }

  @AfterAll
  static void stopCluster() {
    if (cluster != null) {
      cluster.close();
    }
  }

  @Test
  void aTaskManagerThatLosesItsJobManagerCancelsItsTasksAndRegistersAgain() throws Exception {
    String jarId =
        cluster.client.upload(TestCluster.testJobJar(cluster.dir.resolve("job.jar"), null));
    String jobId =
        cluster.client.run(
            jarId,
            "io.weir.testjobs.KeyedCountJob",
            List.of(
                cluster.dir.resolve("out").toString(),
                "10000000",
                "10",
                cluster.dir.resolve("checkpoints").toUri().toString(),
                "1"),
            2,
            Map.of());
    TestCluster.Node tm = cluster.taskManagers.get(0);
    tm.awaitLog(
        Pattern.compile("Starting 4 tasks of job 'keyed-count' \\(" + jobId + "\\)"),
        Duration.ofSeconds(60));

    cluster.jobManager.process.destroyForcibly().waitFor();

    tm.awaitLog(
        Pattern.compile(
            "The JobManager at 127\\.0\\.0\\.1:\\d+ is lost: nothing heard for \\d+ ms"),
        Duration.ofSeconds(60));
    for (String task : List.of("/0/0#0", "/0/1#0", "/1/0#0", "/1/1#0")) {
      tm.awaitLog(
          Pattern.compile(
              "Task " + jobId + Pattern.quote(task) + " of job 'keyed-count' is CANCELED"),
          Duration.ofSeconds(60));
    }
    tm.awaitLog(
        Pattern.compile(
            "Job 'keyed-count' \\(" + jobId + "\\) released: its class loader is closed"),
        Duration.ofSeconds(60));
    tm.awaitLog(
        Pattern.compile("Cannot register with the JobManager at 127\\.0\\.0\\.1:\\d+ \\(attempt 3"),
        Duration.ofSeconds(60));
    assertThat(tm.process.isAlive()).isTrue();
  }
}

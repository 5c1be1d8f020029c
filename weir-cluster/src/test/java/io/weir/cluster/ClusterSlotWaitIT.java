package io.weir.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A job whose only TaskManager is killed waits for slots; a TaskManager started later gets it,
 * checkpoints resume (triggers made while it waited are delivered once it is deployed) and the job
 * finishes with exact output.
 */
class ClusterSlotWaitIT {

  private static TestCluster cluster;

  @BeforeAll
  static void startCluster() throws Exception {
    cluster =
        new TestCluster(
            "slotwait",
            Map.of(
                ClusterOptions.HEARTBEAT_INTERVAL.key(), "250",
                ClusterOptions.HEARTBEAT_TIMEOUT.key(), "3000",
                ClusterOptions.SLOT_REQUEST_TIMEOUT.key(), "120000"));
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
  void aRestartWaitsForSlotsAndResumesOnANewTaskManager() throws Exception {
    String jarId =
        cluster.client.upload(TestCluster.testJobJar(cluster.dir.resolve("job.jar"), null));
    Path out = cluster.dir.resolve("out");
    long n = 10_000;
    // Its input ends only once the gate exists: the job cannot finish before its TaskManager dies.
    Path gate = cluster.dir.resolve("out.gate");
    List<String> args =
        new ArrayList<>(TestCluster.keyedCountArgs(out, n, cluster.dir.resolve("checkpoints"), 3));
    args.add(gate.toString());
    String jobId = cluster.client.run(jarId, "io.weir.testjobs.KeyedCountJob", args, 2, Map.of());
    await()
        .atMost(Duration.ofSeconds(60))
        .pollInterval(Duration.ofMillis(100))
        .until(
            () ->
                cluster
                        .client
                        .get("/jobs/" + jobId + "/checkpoints")
                        .path("counts")
                        .path("completed")
                        .asLong()
                    > 0);
    TestCluster.Node only = cluster.taskManagers.remove(0);
    only.process.destroyForcibly().waitFor();
    // The restart asks for slots no TaskManager has: the attempt waits.
    cluster.jobManager.awaitLog(
        Pattern.compile("Job 'keyed-count' attempt 1 asks for 2 slots"), Duration.ofSeconds(60));
    await()
        .atMost(Duration.ofSeconds(60))
        .pollInterval(Duration.ofMillis(100))
        .until(() -> cluster.taskManagerIds().isEmpty());
    cluster.startTaskManager(2);
    Files.createFile(gate);
    await()
        .atMost(Duration.ofSeconds(120))
        .pollInterval(Duration.ofMillis(200))
        .until(() -> List.of("FINISHED", "FAILED", "CANCELED").contains(cluster.jobState(jobId)));
    JsonNode job = cluster.client.get("/jobs/" + jobId);
    assertThat(job.path("state").asText()).as(job.toString()).isEqualTo("FINISHED");
    Map<String, Integer> lines = new HashMap<>();
    try (Stream<Path> files = Files.list(out)) {
      List<String> all = new ArrayList<>();
      for (Path p : files.filter(p -> p.getFileName().toString().startsWith("part-")).toList()) {
        all.addAll(Files.readAllLines(p));
      }
      all.forEach(l -> lines.merge(l, 1, Integer::sum));
    }
    Map<String, Integer> expected = new HashMap<>();
    for (long key = 0; key < 10; key++) {
      for (long c = 1; c <= n / 10; c++) {
        expected.put(key + "," + c, 1);
      }
    }
    assertThat(lines).isEqualTo(expected);
  }
}

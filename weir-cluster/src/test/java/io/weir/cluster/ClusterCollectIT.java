package io.weir.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.LongStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@code executeAndCollect} on a cluster: the program ({@code io.weir.testjobs.CollectJob}) runs on
 * the JobManager's process, its collect sink on a TaskManager process, and the results reach the
 * program's iterator; the program writes what it read to a file. One cluster for the class.
 */
@Timeout(120)
class ClusterCollectIT {

  private static TestCluster cluster;
  private static String jarId;

  @BeforeAll
  static void startCluster() throws Exception {
    cluster = new TestCluster("collect", Map.of());
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

  private static String run(String mode, Path out, Integer parallelism, String... more)
      throws Exception {
    List<String> args = new ArrayList<>(List.of(mode, out.toString()));
    args.addAll(List.of(more));
    return cluster.client.run(jarId, "io.weir.testjobs.CollectJob", args, parallelism, Map.of());
  }

  /** What the program read, once it wrote it. */
  private static List<String> awaitOutput(Path out) throws Exception {
    await()
        .atMost(Duration.ofSeconds(90))
        .pollInterval(Duration.ofMillis(100))
        .until(() -> Files.exists(out));
    return Files.readAllLines(out);
  }

  @Test
  void aBoundedJobsResultsComeBackCompletelyFromATaskManagerProcess() throws Exception {
    Path out = cluster.dir.resolve("all.out");
    String jobId = run("all", out, 2);

    List<String> lines = awaitOutput(out);

    assertThat(lines)
        .containsExactlyInAnyOrderElementsOf(
            LongStream.rangeClosed(1, 2000).mapToObj(i -> String.valueOf(2 * i)).toList());
    assertThat(cluster.awaitEnded(jobId).path("state").asText()).isEqualTo("FINISHED");
  }

  @Test
  void aLimitOnAnUnboundedSourceCancelsTheJob() throws Exception {
    Path out = cluster.dir.resolve("limit.out");
    String jobId = run("limit", out, 1);

    assertThat(awaitOutput(out)).containsExactly("0", "1", "2", "3", "4");
    assertThat(cluster.awaitEnded(jobId).path("state").asText()).isEqualTo("CANCELED");
  }

  @Test
  void aFailingJobsExceptionAndItsCauseComeOutOfTheIterator() throws Exception {
    Path out = cluster.dir.resolve("fail.out");
    String jobId = run("fail", out, 1);

    assertThat(awaitOutput(out)).anyMatch(line -> line.contains("no fifty"));
    assertThat(cluster.awaitEnded(jobId).path("state").asText()).isEqualTo("FAILED");
  }

  @Test
  void withCheckpointingARestartNeitherRepeatsNorLosesAnElementTheProgramRead() throws Exception {
    Path out = cluster.dir.resolve("restart.out");
    Path signal = cluster.dir.resolve("restart.signal");
    String jobId =
        run(
            "restart",
            out,
            1,
            cluster.dir.resolve("restart-checkpoints").toUri().toString(),
            signal.toString());

    List<String> lines = awaitOutput(out);

    assertThat(cluster.awaitEnded(jobId).path("state").asText()).isEqualTo("FINISHED");
    assertThat(cluster.exceptionMessages(jobId)).anyMatch(m -> m.contains("injected failure"));
    assertThat(lines).isEqualTo(LongStream.range(0, 1000).mapToObj(String::valueOf).toList());
  }

  /** A job submitted to a cluster keeps parallelism.default (1), not the local processors. */
  @Test
  void aJobOnAClusterRunsAtParallelismDefault() throws Exception {
    Path out = cluster.dir.resolve("parallelism.out");
    run("parallelism", out, null);

    assertThat(awaitOutput(out)).containsExactly("1");
  }
}

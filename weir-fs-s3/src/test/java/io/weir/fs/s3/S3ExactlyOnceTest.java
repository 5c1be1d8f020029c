package io.weir.fs.s3;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.weir.api.JobClient;
import io.weir.api.JobExecutionResult;
import io.weir.api.config.Configuration;
import io.weir.connector.files.testing.CountingJob;
import io.weir.runtime.storage.CompletedCheckpointLocation;
import io.weir.runtime.storage.FileSystem;
import io.weir.runtime.storage.FileSystems;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The exactly-once-under-failures job with its checkpoints on S3 (a real S3-compatible server):
 * injected task failures, each restored from the latest checkpoint on S3; counts and output exact.
 */
class S3ExactlyOnceTest {

  static final String BUCKET = "jobs";
  static S3Server server;

  @BeforeAll
  static void startServer() throws Exception {
    server = S3Server.start(BUCKET);
  }

  @AfterAll
  static void stopServer() throws Exception {
    if (server != null) {
      server.close();
    }
  }

  @AfterEach
  void forgetFileSystems() {
    FileSystems.closeAll();
  }

  static Stream<Arguments> cells() {
    return Stream.of(
        Arguments.of("hashmap", false),
        Arguments.of("rocksdb-incremental", false),
        Arguments.of("rocksdb-incremental", true));
  }

  @ParameterizedTest(name = "{0}, entropy {1}")
  @MethodSource("cells")
  void countsAreExactAfterRepeatedFailures(String backend, boolean entropy, @TempDir Path dir)
      throws Exception {
    String base =
        "s3://" + BUCKET + (entropy ? "/_entropy_" : "") + "/checkpoints/" + UUID.randomUUID();
    Configuration conf = server.configuration();
    if (entropy) {
      conf.setString("s3.entropy.key", "_entropy_");
    }
    CountingJob job = new CountingJob(base, conf, backend, 2, 60_000, 5, 4_000, dir);
    JobClient client = job.start();
    job.finish();
    JobExecutionResult result = client.getJobExecutionResult().get(5, TimeUnit.MINUTES);

    job.verify(result);
    // Paced at 4000 records per split per checkpoint: the job needed at least 15 checkpoints,
    // each restore read its state from S3, and the job's directory is there.
    assertThat(CountingJob.lastCompleted(client)).isGreaterThanOrEqualTo(15);
    FileSystem fs = FileSystems.get(URI.create(base));
    String jobDir = URI.create(base).getPath() + "/" + client.getJobID().value();
    assertThat(fs.list(jobDir)).contains("shared");
    assertThat(server.store().puts.get()).isPositive();
  }

  @Test
  void aSecondJobResumesFromACheckpointRetainedOnS3(@TempDir Path dir) throws Exception {
    String base = "s3://" + BUCKET + "/checkpoints/" + UUID.randomUUID();
    Configuration conf =
        server
            .configuration()
            .setString(
                "execution.checkpointing.externalized-checkpoint-retention",
                "RETAIN_ON_CANCELLATION")
            .setString("execution.checkpointing.num-retained", "3");
    CountingJob first = new CountingJob(base, conf, "rocksdb-incremental", 2, 40_000, 0, 0, dir);
    first.allow(0.5);
    JobClient firstClient = first.start();
    await().atMost(Duration.ofSeconds(60)).until(() -> CountingJob.lastCompleted(firstClient) >= 3);
    firstClient.cancel().get(60, TimeUnit.SECONDS);

    FileSystem fs = FileSystems.get(URI.create(base));
    String jobDir = URI.create(base).getPath() + "/" + firstClient.getJobID().value();
    List<Long> retained =
        fs.list(jobDir).stream()
            .filter(name -> name.matches("chk-\\d+"))
            .filter(name -> exists(fs, jobDir + "/" + name + "/_metadata"))
            .map(name -> Long.parseLong(name.substring(4)))
            .sorted()
            .toList();
    assertThat(retained).hasSize(3);
    for (long id : retained) {
      // Each retained incremental checkpoint, with its shared files, restores on its own.
      String chk = "s3://" + BUCKET + jobDir + "/chk-" + id;
      assertThat(CompletedCheckpointLocation.load(chk, null).checkpoint().checkpointId())
          .isEqualTo(id);
    }
    long newest = retained.get(retained.size() - 1);
    String pointer = "s3://" + BUCKET + jobDir + "/chk-" + newest;

    CountingJob second =
        new CountingJob(
            base,
            server.configuration().setString("execution.state-recovery.path", pointer),
            "rocksdb-incremental",
            2,
            40_000,
            0,
            0,
            dir);
    JobClient secondClient = second.start();
    second.finish();
    JobExecutionResult result = secondClient.getJobExecutionResult().get(5, TimeUnit.MINUTES);

    assertThat(result.metrics().get("job.lastRestoredCheckpoint")).isEqualTo(newest);
    second.verify(result); // the two jobs together counted every record exactly once
  }

  private static boolean exists(FileSystem fs, String path) {
    try {
      return fs.exists(path);
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }
}

package io.weir.fs.hadoop;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.weir.api.JobClient;
import io.weir.api.JobExecutionResult;
import io.weir.api.config.Configuration;
import io.weir.connector.files.testing.CountingJob;
import io.weir.runtime.storage.FileSystems;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * HDFS failing a job that checkpoints to it, for real: the name node in safe mode (it refuses
 * writes) or stopped. Checkpoints fail (the job goes on, within the tolerable failures) and succeed
 * again once HDFS is back; nothing is lost.
 */
class HdfsFaultsTest {

  static final Duration WAIT = Duration.ofSeconds(90);
  static MiniHdfs hdfs;

  @BeforeAll
  static void startHdfs() throws IOException {
    hdfs = MiniHdfs.start();
  }

  @AfterAll
  static void stopHdfs() {
    FileSystems.closeAll();
    if (hdfs != null) {
      hdfs.close();
    }
  }

  @Test
  void checkpointsDeclinedWhileTheNameNodeRefusesWritesAndTheNextOneSucceeds(@TempDir Path dir)
      throws Exception {
    CountingJob job =
        new CountingJob(
            hdfs.uri() + "/checkpoints/" + UUID.randomUUID(),
            new Configuration(),
            "hashmap",
            2,
            40_000,
            0,
            0,
            dir);
    job.allow(0.5);
    JobClient client = job.start();
    await().atMost(WAIT).until(() -> CountingJob.lastCompleted(client) > 0);

    hdfs.safeMode(true);
    long failed;
    try {
      await().atMost(WAIT).until(() -> CountingJob.lastFailed(client) > 0);
      failed = CountingJob.lastFailed(client);
    } finally {
      hdfs.safeMode(false);
    }
    await().atMost(WAIT).until(() -> CountingJob.lastCompleted(client) > failed);
    job.finish();
    JobExecutionResult result = client.getJobExecutionResult().get(5, TimeUnit.MINUTES);
    job.verify(result);
    assertThat(result.metrics().get("job.checkpoints.failed")).isPositive();
  }

  @Test
  void checkpointsFailWhileTheNameNodeIsDownAndSucceedWhenItIsBack(@TempDir Path dir)
      throws Exception {
    URI nameNode = hdfs.uri();
    Configuration conf =
        new Configuration()
            // Fail fast while the name node is down, instead of Hadoop's ten tries a second apart.
            .setString("weir.hadoop.ipc.client.connect.max.retries", "1")
            .setString("weir.hadoop.ipc.client.connect.retry.interval", "50");
    CountingJob job =
        new CountingJob(
            nameNode + "/checkpoints/" + UUID.randomUUID(), conf, "hashmap", 2, 40_000, 0, 0, dir);
    job.allow(0.5);
    JobClient client = job.start();
    await().atMost(WAIT).until(() -> CountingJob.lastCompleted(client) > 0);

    hdfs.stopNameNode();
    long failed;
    try {
      await().atMost(WAIT).until(() -> CountingJob.lastFailed(client) > 0);
      failed = CountingJob.lastFailed(client);
    } finally {
      hdfs.restartNameNode();
    }
    assertThat(hdfs.uri()).as("the name node came back on its port").isEqualTo(nameNode);
    await().atMost(WAIT).until(() -> CountingJob.lastCompleted(client) > failed);
    job.finish();
    JobExecutionResult result = client.getJobExecutionResult().get(5, TimeUnit.MINUTES);
    job.verify(result); // no restart: the job went on
    assertThat(result.metrics().get("job.checkpoints.failed")).isPositive();
  }
}

package io.weir.fs.s3;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.weir.api.JobClient;
import io.weir.api.JobExecutionResult;
import io.weir.api.config.Configuration;
import io.weir.connector.files.testing.CountingJob;
import io.weir.runtime.checkpoint.CompletedCheckpoint;
import io.weir.runtime.checkpoint.OperatorState;
import io.weir.runtime.checkpoint.OperatorSubtaskState;
import io.weir.runtime.storage.CheckpointDirectoryScan;
import io.weir.runtime.storage.CheckpointHistoryFormat;
import io.weir.runtime.storage.CompletedCheckpointLocation;
import io.weir.runtime.storage.FileSystem;
import io.weir.runtime.storage.FileSystems;
import io.weir.runtime.storage.StreamStateHandle;
import java.io.IOException;
import java.io.OutputStream;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.services.s3.model.ListObjectsV2Request;
import software.amazon.awssdk.services.s3.model.ListObjectsV2Response;
import software.amazon.awssdk.services.s3.model.S3Object;

/**
 * No checkpoint file leaks on S3 (a real S3-compatible server): a job takes at least 50 incremental
 * RocksDB checkpoints while task failures and checkpoints aborted by the store are injected in
 * between. Afterwards its directory holds exactly the files its retained checkpoints reference, by
 * Weir's own orphan scan and by a listing of the server's objects, and each retained checkpoint
 * restores on its own into a new job whose counts come out exact.
 */
class S3LeakTest {

  static final String BUCKET = "leak";
  static final Duration WAIT = Duration.ofSeconds(60);
  static final int RETAINED = 3;
  static final int ROUNDS = 4;
  static final long PER_SPLIT = 40_000;
  static S3Server server;

  @TempDir Path dir;

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
  void mend() {
    server.store().refuseWrites = false;
    FileSystems.closeAll();
  }

  private static Configuration conf() {
    return server
        .configuration()
        .setString("s3.attempts.maximum", "2")
        .setString("s3.retry.interval", "10 ms")
        .setString(
            "execution.checkpointing.externalized-checkpoint-retention", "RETAIN_ON_CANCELLATION")
        .setString("execution.checkpointing.num-retained", String.valueOf(RETAINED));
  }

  @Test
  void fiftyIncrementalCheckpointsWithFailuresAndAbortsLeaveNoOrphans() throws Exception {
    String base = "s3://" + BUCKET + "/checkpoints/" + UUID.randomUUID();
    // Paced at 500 records per split per completed checkpoint: 80 checkpoints to reach the end.
    CountingJob job =
        new CountingJob(base, conf(), "rocksdb-incremental", 2, PER_SPLIT, ROUNDS, 500, dir);
    job.gateFailures();
    job.allow(1.0);
    JobClient client = job.start();
    FileSystem fs = FileSystems.get(URI.create(base));
    for (int round = 1; round <= ROUNDS; round++) {
      long target = round * 10L;
      await().atMost(WAIT).until(() -> CountingJob.lastCompleted(client) >= target);
      // A checkpoint aborted: the store refuses its writes in the middle.
      long failedBefore = CountingJob.lastFailed(client);
      server.store().refuseWrites = true;
      try {
        await().atMost(WAIT).until(() -> CountingJob.lastFailed(client) > failedBefore);
      } finally {
        server.store().refuseWrites = false;
      }
      // What a task of an aborted checkpoint writes after the coordinator deleted its directory:
      // only the cleanup after a restore finds it.
      String late = lateFilesOfAnAbortedCheckpoint(base, client, target - 5);
      // A task failure, soon after the next completed checkpoint; the job restores from S3.
      int left = job.failuresLeft();
      job.releaseFailure();
      await().atMost(WAIT).until(() -> job.failuresLeft() < left);
      await().atMost(WAIT).until(() -> !fs.exists(late));
    }
    await().atMost(WAIT).until(() -> CountingJob.lastCompleted(client) >= 50);
    client.cancel().get(60, TimeUnit.SECONDS);
    assertThat(CountingJob.lastFailed(client)).isPositive();

    URI jobDir = URI.create(base + "/" + client.getJobID().value());
    CheckpointDirectoryScan.Report report = CheckpointDirectoryScan.scan(jobDir);
    assertThat(report.problems()).isEmpty();
    assertThat(report.orphans()).isEmpty();
    assertThat(report.kept()).isEmpty();
    List<Long> retained = report.completedCheckpoints();
    assertThat(retained).hasSize(RETAINED);
    assertThat(retained.get(0)).isGreaterThanOrEqualTo(50 - RETAINED);

    // Independently: the server's objects are exactly what the retained checkpoints reference.
    Set<String> referenced = new TreeSet<>();
    for (long id : retained) {
      CompletedCheckpoint checkpoint =
          CompletedCheckpointLocation.load(jobDir + "/chk-" + id, null).checkpoint();
      assertThat(checkpoint.checkpointId()).isEqualTo(id);
      referenced.add("chk-" + id + "/_metadata");
      referenced.addAll(files(checkpoint));
    }
    Set<String> objects = objectsUnder(jobDir.getPath().substring(1) + "/");
    // Besides, a retained checkpoint may have the flight recorder's history beside its metadata
    // (its write is never retried: a fault injected into it costs only the history).
    Set<String> histories = new TreeSet<>();
    retained.forEach(id -> histories.add("chk-" + id + "/" + CheckpointHistoryFormat.FILE));
    assertThat(objects).containsAll(referenced);
    Set<String> unreferenced = new TreeSet<>(objects);
    unreferenced.removeAll(referenced);
    assertThat(unreferenced).isSubsetOf(histories);
    assertThat(referenced).anyMatch(p -> p.startsWith("shared/"));

    // Each retained checkpoint restores on its own, and nothing of it changes.
    for (long id : retained) {
      CountingJob resumed =
          new CountingJob(
              "s3://" + BUCKET + "/resumed/" + UUID.randomUUID(),
              server
                  .configuration()
                  .setString("execution.state-recovery.path", jobDir + "/chk-" + id),
              "rocksdb-incremental",
              2,
              PER_SPLIT,
              0,
              0,
              dir.resolve("resumed-" + id));
      JobClient resumedClient = resumed.start();
      resumed.finish();
      JobExecutionResult result = resumedClient.getJobExecutionResult().get(2, TimeUnit.MINUTES);
      assertThat(result.metrics().get("job.lastRestoredCheckpoint")).isEqualTo(id);
      assertThat(result.metrics().get("job.restarts")).isZero();
      resumed.verifyFinalCounts();
    }
    assertThat(objectsUnder(jobDir.getPath().substring(1) + "/")).isEqualTo(objects);
  }

  /**
   * Writes a state file and a {@code _metadata.inprogress} into {@code chk-<id>} of the job, once
   * the coordinator has deleted that checkpoint's directory, as a task of a checkpoint that was
   * given up could; returns the directory's path.
   */
  private static String lateFilesOfAnAbortedCheckpoint(String base, JobClient client, long id)
      throws IOException {
    FileSystem fs = FileSystems.get(URI.create(base));
    String chk = URI.create(base).getPath() + "/" + client.getJobID().value() + "/chk-" + id;
    await().atMost(WAIT).until(() -> !fs.exists(chk));
    for (String name : List.of(UUID.randomUUID().toString(), "_metadata.inprogress")) {
      try (OutputStream out = fs.create(chk + "/" + name, false)) {
        out.write(new byte[1234]);
      }
    }
    return chk;
  }

  /** The relative paths of the files a checkpoint's handles name. */
  private static Set<String> files(CompletedCheckpoint checkpoint) {
    Set<String> paths = new HashSet<>();
    for (OperatorState op : checkpoint.operators()) {
      for (OperatorSubtaskState st : op.subtasks()) {
        for (StreamStateHandle handle : st.handles()) {
          if (handle instanceof StreamStateHandle.File f) {
            paths.add(f.relativePath());
          }
        }
      }
    }
    return paths;
  }

  /**
   * The keys under {@code prefix}, relative to it, as the server's blob store lists them (not
   * through Weir's file system); directory markers (keys ending in '/') left out.
   */
  private static Set<String> objectsUnder(String prefix) {
    Set<String> keys = new TreeSet<>();
    String token = null;
    do {
      ListObjectsV2Request.Builder request =
          ListObjectsV2Request.builder().bucket(BUCKET).prefix(prefix).maxKeys(1000);
      if (token != null) {
        request.continuationToken(token);
      }
      ListObjectsV2Response page = server.store().list(request.build());
      for (S3Object object : page.contents()) {
        if (!object.key().endsWith("/")) {
          keys.add(object.key().substring(prefix.length()));
        }
      }
      token = Boolean.TRUE.equals(page.isTruncated()) ? page.nextContinuationToken() : null;
    } while (token != null);
    return keys;
  }
}

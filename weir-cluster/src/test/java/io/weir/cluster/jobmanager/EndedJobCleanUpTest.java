package io.weir.cluster.jobmanager;

import static org.assertj.core.api.Assertions.assertThat;

import io.weir.api.JobStatus;
import io.weir.api.config.CheckpointingOptions;
import io.weir.api.config.Configuration;
import io.weir.cluster.ha.JobResult;
import io.weir.cluster.ha.LeaderElection;
import io.weir.cluster.ha.LeaderEpoch;
import io.weir.cluster.ha.SubmittedJob;
import io.weir.cluster.ha.ZooKeeperHaServices;
import io.weir.cluster.rpc.JarStore;
import io.weir.runtime.checkpoint.CompletedCheckpoint;
import io.weir.runtime.storage.CheckpointStorage;
import io.weir.runtime.storage.CheckpointStorages;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A JobManager that was lost after it recorded a job's end (its dirty result) but before it deleted
 * the job's checkpoints leaves that clean-up to the next leader, which does it from what the result
 * names, as Flink's dispatcher finishes the clean-up of a dirty job result. A real ZooKeeper server
 * and checkpoints on the local file system.
 */
class EndedJobCleanUpTest {

  @TempDir static Path dir;

  private static TestingServer zooKeeper;
  private static ZooKeeperHaServices services;
  private static LeaderElection election;
  private static LeaderEpoch epoch;

  @BeforeAll
  static void lead() throws Exception {
    zooKeeper = new TestingServer(true);
    services =
        ZooKeeperHaServices.start(
            new Configuration()
                .setString("high-availability.type", "zookeeper")
                .setString("high-availability.zookeeper.quorum", zooKeeper.getConnectString())
                .setString("high-availability.storageDir", dir.resolve("ha").toString())
                .setString("high-availability.cluster-id", "clean-up"));
    CompletableFuture<LeaderEpoch> granted = new CompletableFuture<>();
    election =
        services.leaderElection(
            "jm-1",
            "127.0.0.1:6123",
            "http://127.0.0.1:8081",
            new LeaderElection.Contender() {
              @Override
              public void grantLeadership(LeaderEpoch e) {
                granted.complete(e);
              }

              @Override
              public void revokeLeadership() {}
            });
    epoch = granted.get(30, TimeUnit.SECONDS);
  }

  @AfterAll
  static void stop() throws Exception {
    election.close();
    services.close();
    zooKeeper.close();
  }

  /** Job {@code jobId}, submitted, with two retained checkpoints, a shared file and an orphan. */
  private static Path submittedWithCheckpoints(String jobId, Path checkpoints) throws Exception {
    Configuration conf = new Configuration();
    conf.set(CheckpointingOptions.CHECKPOINTS_DIRECTORY, checkpoints.toUri().toString());
    CheckpointStorage storage = CheckpointStorages.create(conf, jobId);
    var store = services.completedCheckpointStore(jobId, epoch, 3, storage::externalPointer, conf);
    Path sstFile = Files.writeString(dir.resolve(jobId + ".sst"), "shared bytes");
    storage.writeSharedFile(1, sstFile, "an SST file");
    for (long id = 1; id <= 2; id++) {
      CompletedCheckpoint checkpoint =
          new CompletedCheckpoint(jobId, id, System.currentTimeMillis(), false, List.of());
      storage.commitCheckpoint(checkpoint);
      store.add(checkpoint);
    }
    Files.createDirectories(checkpoints.resolve(jobId).resolve("chk-3"));
    Files.writeString(checkpoints.resolve(jobId).resolve("chk-3").resolve("part"), "aborted");
    Path jar = dir.resolve(jobId + ".jar");
    try (var out = new java.util.jar.JarOutputStream(Files.newOutputStream(jar))) {
      out.putNextEntry(new java.util.jar.JarEntry("com/example/Counts.txt"));
      out.write(jobId.getBytes(java.nio.charset.StandardCharsets.UTF_8));
      out.closeEntry();
    }
    String jarId;
    try (var in = Files.newInputStream(jar)) {
      jarId = new JarStore(dir.resolve("uploads")).store(in, "job.jar");
    }
    new LeaderSession(services, epoch)
        .jobSubmitted(
            new SubmittedJob(
                jobId,
                "counts",
                jarId,
                "com.example.Counts",
                List.of(),
                1,
                Map.of(),
                System.currentTimeMillis()),
            jar);
    return checkpoints.resolve(jobId);
  }

  private static List<Path> filesUnder(Path jobDirectory) throws Exception {
    if (!Files.exists(jobDirectory)) {
      return List.of();
    }
    try (Stream<Path> files = Files.walk(jobDirectory)) {
      return new ArrayList<>(files.filter(Files::isRegularFile).toList());
    }
  }

  private static int retainedInZooKeeper(String jobId) {
    return services
        .completedCheckpointStore(jobId, epoch, 3, id -> "unused", new Configuration())
        .all()
        .size();
  }

  @Test
  void theNextLeaderDeletesTheCheckpointsTheLostOneHadNotDeletedAndForgetsTheJob()
      throws Exception {
    String jobId = "0123456789abcdef0123456789abcdef";
    Path checkpoints = dir.resolve("checkpoints");
    Path jobDirectory = submittedWithCheckpoints(jobId, checkpoints);
    assertThat(filesUnder(jobDirectory)).hasSizeGreaterThanOrEqualTo(4);
    // The lost leader recorded the end, naming what its clean-up deletes, and got no further.
    new LeaderSession(services, epoch)
        .jobReachedEnd(
            new JobResult(
                jobId,
                "counts",
                JobStatus.CANCELED,
                7L,
                "cancelled",
                checkpoints.toUri().toString()));

    List<SubmittedJob> recovered =
        new LeaderSession(services, epoch).jobsToRecover(new JarStore(dir.resolve("jars-1")));

    assertThat(recovered).as("an ended job is never run again").isEmpty();
    assertThat(filesUnder(jobDirectory))
        .as("the checkpoints, the shared file and the aborted checkpoint's file")
        .isEmpty();
    assertThat(retainedInZooKeeper(jobId)).isZero();
    assertThat(services.jobResultStore().get(jobId))
        .hasValueSatisfying(e -> assertThat(e.clean()).isTrue());
    assertThat(services.submittedJobStore().jobIds()).doesNotContain(jobId);
  }

  @Test
  void checkpointsTheResultDoesNotNameAreKept() throws Exception {
    String jobId = "1123456789abcdef0123456789abcdef";
    Path jobDirectory = submittedWithCheckpoints(jobId, dir.resolve("kept"));
    List<Path> before = filesUnder(jobDirectory);
    // A failed job (or one cancelled with RETAIN_ON_CANCELLATION) keeps its checkpoints.
    new LeaderSession(services, epoch)
        .jobReachedEnd(new JobResult(jobId, "counts", JobStatus.FAILED, 7L, "boom", null));

    List<SubmittedJob> recovered =
        new LeaderSession(services, epoch).jobsToRecover(new JarStore(dir.resolve("jars-2")));

    assertThat(recovered).isEmpty();
    assertThat(filesUnder(jobDirectory)).containsExactlyInAnyOrderElementsOf(before);
    assertThat(retainedInZooKeeper(jobId)).isEqualTo(2);
    assertThat(services.jobResultStore().get(jobId))
        .hasValueSatisfying(e -> assertThat(e.clean()).isTrue());
  }

  @Test
  void aCleanUpThatCannotBeDoneNowLeavesTheResultDirtyForTheNextLeader() throws Exception {
    String jobId = "2123456789abcdef0123456789abcdef";
    Path jobDirectory = submittedWithCheckpoints(jobId, dir.resolve("unreachable"));
    List<Path> before = filesUnder(jobDirectory);
    new LeaderSession(services, epoch)
        .jobReachedEnd(
            new JobResult(
                jobId, "counts", JobStatus.FINISHED, 7L, null, "nosuchfs://elsewhere/checkpoints"));

    List<SubmittedJob> recovered =
        new LeaderSession(services, epoch).jobsToRecover(new JarStore(dir.resolve("jars-3")));

    assertThat(recovered).as("still never run again").isEmpty();
    assertThat(services.jobResultStore().get(jobId))
        .hasValueSatisfying(e -> assertThat(e.clean()).as("dirty, to be tried again").isFalse());
    assertThat(services.submittedJobStore().jobIds()).contains(jobId);
    assertThat(filesUnder(jobDirectory)).containsExactlyInAnyOrderElementsOf(before);
    assertThat(retainedInZooKeeper(jobId)).isEqualTo(2);
  }
}

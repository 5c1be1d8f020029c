package io.weir.cluster.ha;

import static io.weir.cluster.ha.HaTesting.closeQuietly;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.weir.api.JobStatus;
import io.weir.cluster.ha.HaTesting.RecordingContender;
import io.weir.cluster.rpc.JarStore;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/** Submitted jobs and job results on a real ZooKeeper server and a storage directory. */
class JobStoresTest {

  private static final String JOB = "00112233445566778899aabbccddeeff";

  @TempDir static Path dir;

  @RegisterExtension
  static final ZooKeeperServerExtension ZOOKEEPER = new ZooKeeperServerExtension();

  private final List<AutoCloseable> open = new ArrayList<>();

  @AfterEach
  void closeAll() {
    for (int i = open.size() - 1; i >= 0; i--) {
      closeQuietly(open.get(i));
    }
  }

  private ZooKeeperHaServices services(String clusterId) {
    ZooKeeperHaServices s =
        ZooKeeperHaServices.start(
            HaTesting.configuration(ZOOKEEPER.connectString(), dir.resolve("ha"))
                .setString("high-availability.cluster-id", clusterId));
    open.add(s);
    return s;
  }

  private LeaderElection lead(ZooKeeperHaServices s, String name, RecordingContender c) {
    LeaderElection e = s.leaderElection(name, name + ":6123", "http://" + name + ":8081", c);
    open.add(e);
    return e;
  }

  private static Path jar(Path where) throws Exception {
    Path jar = where.resolve("job.jar");
    try (OutputStream out = Files.newOutputStream(jar);
        JarOutputStream j = new JarOutputStream(out)) {
      j.putNextEntry(new JarEntry("com/example/Job.txt"));
      j.write("a job".getBytes(StandardCharsets.UTF_8));
      j.closeEntry();
    }
    return jar;
  }

  @Test
  void aSubmittedJobAndItsJarSurviveTheLeader() throws Exception {
    Path jar = jar(Files.createDirectories(dir.resolve("upload")));
    String jarId;
    try (InputStream in = Files.newInputStream(jar)) {
      jarId = new JarStore(dir.resolve("jars-a")).store(in, "job.jar");
    }
    SubmittedJob job =
        new SubmittedJob(
            JOB,
            "keyed count",
            jarId,
            "com.example.Job",
            List.of("--input", "/data"),
            4,
            Map.of("execution.checkpointing.interval", "200 ms"),
            1234L);

    ZooKeeperHaServices a = services("jobs");
    RecordingContender ca = new RecordingContender();
    LeaderElection ea = lead(a, "jm-a", ca);
    LeaderEpoch epochA = ca.awaitGrant();
    a.submittedJobStore().put(epochA, job, jar);
    assertThatThrownBy(() -> a.submittedJobStore().put(epochA, job, jar))
        .isInstanceOf(HighAvailabilityException.class)
        .hasMessageContaining("submission of job " + JOB);
    SubmittedJob other =
        new SubmittedJob("ffee", "x", "0".repeat(64), "X", List.of(), null, Map.of(), 1L);
    assertThatThrownBy(() -> a.submittedJobStore().put(epochA, other, jar))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("hashes to " + jarId);

    ZooKeeperHaServices b = services("jobs");
    RecordingContender cb = new RecordingContender();
    lead(b, "jm-b", cb);
    ea.close();
    LeaderEpoch epochB = cb.awaitGrant();
    SubmittedJobStore store = b.submittedJobStore();
    assertThat(store.jobIds()).containsExactly(JOB);
    assertThat(store.get(JOB)).contains(job);
    JarStore local = new JarStore(dir.resolve("jars-b"));
    store.restoreJar(jarId, local);
    assertThat(local.path(jarId)).hasSameBinaryContentAs(jar);
    assertThat(dir.resolve("ha/jobs/jars/" + jarId + ".jar")).exists();

    // The deposed leader can no longer remove it; the current one can, and the jar stays.
    assertThatThrownBy(() -> a.submittedJobStore().remove(epochA, JOB))
        .isInstanceOf(FencedException.class);
    store.remove(epochB, JOB);
    assertThat(store.jobIds()).isEmpty();
    assertThat(store.get(JOB)).isEmpty();
    assertThat(dir.resolve("ha/jobs/submitted-jobs/" + JOB + ".json")).doesNotExist();
    assertThat(dir.resolve("ha/jobs/jars/" + jarId + ".jar")).exists();
  }

  @Test
  void aFinishedJobsResultTellsANewLeaderNotToRunItAgain() throws Exception {
    ZooKeeperHaServices a = services("results");
    RecordingContender ca = new RecordingContender();
    LeaderElection ea = lead(a, "jm-a", ca);
    LeaderEpoch epochA = ca.awaitGrant();
    JobResult finished = new JobResult(JOB, "keyed count", JobStatus.FINISHED, 99L, null);
    a.jobResultStore().createDirty(epochA, finished);
    assertThatThrownBy(() -> new JobResult(JOB, "keyed count", JobStatus.RUNNING, 1L, null))
        .hasMessageContaining("RUNNING is no result");

    ZooKeeperHaServices b = services("results");
    RecordingContender cb = new RecordingContender();
    lead(b, "jm-b", cb);
    ea.close();
    LeaderEpoch epochB = cb.awaitGrant();
    JobResultStore results = b.jobResultStore();
    assertThat(results.hasResult(JOB)).isTrue();
    assertThat(results.hasResult("abcdef")).isFalse();
    assertThat(results.dirtyResults()).containsExactly(finished);

    String another = "ffffffffffffffffffffffffffffffff";
    assertThatThrownBy(
            () ->
                a.jobResultStore()
                    .createDirty(
                        epochA, new JobResult(another, "late", JobStatus.FAILED, 1L, "boom")))
        .isInstanceOf(FencedException.class);
    assertThat(results.hasResult(another)).isFalse();

    results.markClean(epochB, JOB);
    assertThat(results.dirtyResults()).isEmpty();
    assertThat(results.get(JOB).orElseThrow().clean()).isTrue();
    assertThat(results.get(JOB).orElseThrow().result()).isEqualTo(finished);
  }
}

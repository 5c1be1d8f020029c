package io.weir.runtime.recovery;

import static io.weir.runtime.recovery.RecoveryTestSupport.WAIT;
import static io.weir.runtime.recovery.RecoveryTestSupport.completedIds;
import static io.weir.runtime.recovery.RecoveryTestSupport.jobDir;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.weir.api.ExternalizedCheckpointRetention;
import io.weir.api.JobClient;
import io.weir.api.RestartStrategy;
import io.weir.api.StreamEnvironment;
import io.weir.api.typeutils.Types;
import io.weir.runtime.api.CollectSink;
import io.weir.runtime.recovery.RecoveryTestSupport.Count;
import io.weir.runtime.recovery.RecoveryTestSupport.CounterProbe;
import io.weir.runtime.recovery.RecoveryTestSupport.CountingSource;
import io.weir.runtime.recovery.RecoveryTestSupport.KeyedCounter;
import io.weir.runtime.storage.CheckpointDirectoryScan;
import io.weir.runtime.storage.CompletedCheckpointLocation;
import io.weir.runtime.testing.matrix.TestMatrix;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A job on local files restarts from its own checkpoint and then deletes what the failed attempt
 * left in its directory (an incomplete {@code chk-<n>} with {@code _metadata.inprogress}), while a
 * directory of a checkpoint newer than the newest completed one stays.
 */
@Timeout(90)
@TestMatrix
class OrphanCleanupAfterRestoreTest {

  static final long FIRST = 200;
  static final long SECOND = 300;

  @TempDir Path checkpoints;

  @Test
  void aRestoreFromTheJobsOwnCheckpointDeletesWhatTheFailedAttemptLeft() throws Exception {
    StreamEnvironment env = StreamEnvironment.create();
    env.setParallelism(1);
    env.setBufferTimeout(Duration.ZERO);
    env.enableCheckpointing(Duration.ofMillis(20));
    env.getCheckpointConfig()
        .setCheckpointStorage(checkpoints.toUri().toString())
        .setExternalizedCheckpointRetention(ExternalizedCheckpointRetention.RETAIN_ON_CANCELLATION)
        .setNumRetainedCheckpoints(2);
    env.getConfiguration().setString("execution.checkpointing.data-inline-threshold", "0 b");
    env.setRestartStrategy(RestartStrategy.fixedDelay(1, Duration.ZERO));
    CountingSource source = CountingSource.gated(FIRST + SECOND);
    source.control().allow(FIRST);
    CounterProbe probe = new CounterProbe();
    CollectSink<Count> sink = new CollectSink<>();
    env.fromSource(source, "numbers", Types.LONG)
        .uid("source")
        .keyBy(v -> v % 5, Types.LONG)
        .process(new KeyedCounter(probe))
        .uid("counter")
        .sinkTo(sink);
    JobClient client = env.executeAsync("orphans");
    Path jobDir = jobDir(checkpoints, client);
    await()
        .atMost(WAIT)
        .ignoreExceptions()
        .until(() -> completedIds(jobDir).last() >= 4 && !Files.exists(jobDir.resolve("chk-1")));

    // A task of checkpoint 1 (long subsumed) that wrote late, and a checkpoint far ahead.
    Path stale = jobDir.resolve("chk-1");
    List<Path> planted = new ArrayList<>();
    planted.add(write(stale.resolve(UUID.randomUUID().toString()), 300));
    planted.add(write(stale.resolve("_metadata.inprogress"), 40));
    Path ahead = write(jobDir.resolve("chk-1000").resolve(UUID.randomUUID().toString()), 50);
    // Checkpoints alone leave it: only a restore looks for orphans.
    long now = completedIds(jobDir).last();
    await().atMost(WAIT).ignoreExceptions().until(() -> completedIds(jobDir).last() >= now + 2);
    assertThat(planted).allMatch(Files::exists);

    probe.armFailure();
    source.control().allow(FIRST + SECOND);
    assertThat(probe.blocked.await(WAIT.toSeconds(), TimeUnit.SECONDS)).isTrue();
    probe.release.countDown();

    await().atMost(WAIT).until(() -> !Files.exists(stale));
    assertThat(ahead).exists();
    await().atMost(WAIT).until(() -> sink.size() >= FIRST + SECOND);
    client.cancel().get(30, TimeUnit.SECONDS);

    // Once the job has ended nothing is in progress: the far checkpoint's file and whatever the
    // cancelled checkpoint's tasks wrote last are orphans, deleted at the job's end.
    CheckpointDirectoryScan.Report report = CheckpointDirectoryScan.scan(jobDir.toUri());
    assertThat(report.orphans()).isEmpty();
    assertThat(report.kept()).isEmpty();
    assertThat(ahead).doesNotExist();
    for (long id : report.completedCheckpoints()) {
      CompletedCheckpointLocation.load(jobDir.resolve("chk-" + id).toString(), null);
    }
  }

  private static Path write(Path file, int size) throws java.io.IOException {
    Files.createDirectories(file.getParent());
    return Files.write(file, new byte[size]);
  }
}

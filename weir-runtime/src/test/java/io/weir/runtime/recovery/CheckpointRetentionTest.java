package io.weir.runtime.recovery;

import static io.weir.runtime.recovery.RecoveryTestSupport.WAIT;
import static io.weir.runtime.recovery.RecoveryTestSupport.checkpointDirs;
import static io.weir.runtime.recovery.RecoveryTestSupport.completedIds;
import static io.weir.runtime.recovery.RecoveryTestSupport.jobDir;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
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
import io.weir.runtime.storage.CompletedCheckpointLocation;
import io.weir.runtime.storage.RetainedCheckpoint;
import io.weir.runtime.testing.matrix.TestMatrix;
import java.nio.file.Path;
import java.time.Duration;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** What is left of a job's checkpoints after a cancel, per retention policy and num-retained. */
@Timeout(60)
@TestMatrix
class CheckpointRetentionTest {

  @TempDir Path checkpoints;

  /** Starts a keyed count (inline state) with the given policy; waits for checkpoint minId. */
  JobClient runUntilCheckpoint(
      ExternalizedCheckpointRetention retention, int numRetained, long minId) throws Exception {
    StreamEnvironment env = StreamEnvironment.create();
    env.setParallelism(2);
    env.setBufferTimeout(Duration.ZERO);
    env.enableCheckpointing(Duration.ofMillis(20));
    env.getCheckpointConfig()
        .setCheckpointStorage(checkpoints.toUri().toString())
        .setExternalizedCheckpointRetention(retention)
        .setNumRetainedCheckpoints(numRetained);
    CollectSink<Count> sink = new CollectSink<>();
    env.fromSource(CountingSource.unbounded(100), "numbers", Types.LONG)
        .uid("source")
        .keyBy(v -> v % 4, Types.LONG)
        .process(new KeyedCounter())
        .uid("counter")
        .sinkTo(sink);
    JobClient client = env.executeAsync("retention-" + retention);
    Path jobDir = jobDir(checkpoints, client);
    await()
        .atMost(WAIT)
        .ignoreExceptions()
        .until(() -> !completedIds(jobDir).isEmpty() && completedIds(jobDir).last() >= minId);
    return client;
  }

  @Test
  void deleteOnCancellationRemovesTheCheckpoints() throws Exception {
    JobClient client =
        runUntilCheckpoint(ExternalizedCheckpointRetention.DELETE_ON_CANCELLATION, 2, 3);
    Path jobDir = jobDir(checkpoints, client);
    assertThat(completedIds(jobDir)).isNotEmpty();

    client.cancel().get(30, TimeUnit.SECONDS);

    assertThat(checkpointDirs(jobDir)).as("chk-* directories after cancel").isEmpty();
  }

  @Test
  void retainOnCancellationKeepsRestorableCheckpoints() throws Exception {
    JobClient client =
        runUntilCheckpoint(ExternalizedCheckpointRetention.RETAIN_ON_CANCELLATION, 2, 3);
    Path jobDir = jobDir(checkpoints, client);

    client.cancel().get(30, TimeUnit.SECONDS);

    TreeSet<Long> ids = completedIds(jobDir);
    assertThat(ids).hasSize(2);
    assertThat(checkpointDirs(jobDir).keySet()).isEqualTo(ids);
    for (long id : ids) {
      RetainedCheckpoint c =
          CompletedCheckpointLocation.load(jobDir.resolve("chk-" + id).toString(), null);
      assertThat(c.checkpoint().checkpointId()).isEqualTo(id);
    }
  }

  @Test
  void aFailedJobKeepsItsCheckpointsWhateverThePolicy() throws Exception {
    StreamEnvironment env = StreamEnvironment.create();
    env.setParallelism(1);
    env.setBufferTimeout(Duration.ZERO);
    env.enableCheckpointing(Duration.ofMillis(20));
    env.getCheckpointConfig()
        .setCheckpointStorage(checkpoints.toUri().toString())
        .setExternalizedCheckpointRetention(ExternalizedCheckpointRetention.DELETE_ON_CANCELLATION);
    env.setRestartStrategy(RestartStrategy.none());
    CountingSource source = CountingSource.gated(1000);
    source.control().allow(10);
    CounterProbe probe = new CounterProbe();
    env.fromSource(source, "numbers", Types.LONG)
        .uid("source")
        .keyBy(v -> v % 4, Types.LONG)
        .process(new KeyedCounter(probe))
        .uid("counter")
        .sinkTo(new CollectSink<>());
    JobClient client = env.executeAsync("fails");
    Path jobDir = jobDir(checkpoints, client);
    await()
        .atMost(WAIT)
        .until(() -> !completedIds(jobDir).isEmpty() && completedIds(jobDir).last() >= 2);

    probe.armFailure();
    probe.release.countDown();
    source.control().allow(20);
    assertThatThrownBy(() -> client.getJobExecutionResult().get(30, TimeUnit.SECONDS))
        .hasRootCauseMessage("injected failure");

    assertThat(completedIds(jobDir)).as("checkpoints kept after the failure").isNotEmpty();
  }

  @Test
  void numRetainedThreeKeepsAtMostTheThreeNewest() throws Exception {
    JobClient client =
        runUntilCheckpoint(ExternalizedCheckpointRetention.RETAIN_ON_CANCELLATION, 3, 6);
    Path jobDir = jobDir(checkpoints, client);

    client.cancel().get(30, TimeUnit.SECONDS);

    TreeSet<Long> ids = completedIds(jobDir);
    assertThat(checkpointDirs(jobDir)).as("chk-* directories").hasSizeLessThanOrEqualTo(3);
    assertThat(ids).hasSize(3);
    long newest = ids.last();
    assertThat(newest).isGreaterThanOrEqualTo(6);
    assertThat(ids).containsExactly(newest - 2, newest - 1, newest);
  }
}

package io.weir.runtime.recovery;

import static io.weir.runtime.recovery.RecoveryTestSupport.WAIT;
import static io.weir.runtime.recovery.RecoveryTestSupport.awaitCoveringCheckpoint;
import static io.weir.runtime.recovery.RecoveryTestSupport.completedIds;
import static io.weir.runtime.recovery.RecoveryTestSupport.jobDir;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.weir.api.ExternalizedCheckpointRetention;
import io.weir.api.JobClient;
import io.weir.api.JobExecutionResult;
import io.weir.api.StreamEnvironment;
import io.weir.api.config.CheckpointingOptions;
import io.weir.api.typeutils.Types;
import io.weir.runtime.api.CollectSink;
import io.weir.runtime.recovery.RecoveryTestSupport.Count;
import io.weir.runtime.recovery.RecoveryTestSupport.CountingSource;
import io.weir.runtime.recovery.RecoveryTestSupport.KeyedCounter;
import io.weir.runtime.recovery.RecoveryTestSupport.OpenTracker;
import io.weir.runtime.testing.matrix.TestMatrix;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Bad restore and checkpoint settings fail the submission with a message that names what is wrong,
 * before any task starts (no function is opened).
 */
@Timeout(60)
@TestMatrix
class InvalidRestoreSettingsTest {

  static final int KEYS = 3;
  static final long FIRST = 50;

  @TempDir static Path checkpoints;
  @TempDir Path scratch;

  /** A retained checkpoint of a job with operators "source" and "counter". */
  static Path retained;

  @BeforeAll
  static void retainACheckpoint() throws Exception {
    StreamEnvironment env = StreamEnvironment.create();
    env.setParallelism(1);
    env.setBufferTimeout(Duration.ZERO);
    env.enableCheckpointing(Duration.ofMillis(20));
    env.getCheckpointConfig()
        .setCheckpointStorage(checkpoints.toUri().toString())
        .setExternalizedCheckpointRetention(ExternalizedCheckpointRetention.RETAIN_ON_CANCELLATION);
    CountingSource source = CountingSource.unbounded(FIRST);
    CollectSink<Count> sink = new CollectSink<>();
    env.fromSource(source, "numbers", Types.LONG)
        .uid("source")
        .keyBy(v -> v % KEYS, Types.LONG)
        .process(new KeyedCounter())
        .uid("counter")
        .name("counter")
        .sinkTo(sink);
    JobClient client = env.executeAsync("to-retain");
    Path jobDir = jobDir(checkpoints, client);
    await().atMost(WAIT).until(() -> sink.size() >= FIRST);
    awaitCoveringCheckpoint(jobDir, source, FIRST);
    client.cancel().get(30, TimeUnit.SECONDS);
    retained = jobDir.resolve("chk-" + completedIds(jobDir).last());
  }

  /** A job with an opened-or-not probe: source "source" and a map, over a bounded source. */
  static StreamEnvironment jobWithTracker(OpenTracker tracker) {
    StreamEnvironment env = StreamEnvironment.create();
    env.setParallelism(1);
    env.fromSource(CountingSource.bounded(FIRST + 5), "numbers", Types.LONG)
        .uid("source")
        .map(tracker)
        .uid("tracker")
        .sinkTo(new CollectSink<>());
    return env;
  }

  @Test
  void aMissingRecoveryPathIsNamed() {
    OpenTracker tracker = new OpenTracker();
    StreamEnvironment env = jobWithTracker(tracker);
    Path missing = scratch.resolve("no-such-checkpoint");
    env.getConfiguration().set(CheckpointingOptions.SAVEPOINT_PATH, missing.toUri().toString());

    assertThatThrownBy(() -> env.execute("missing-path"))
        .hasMessageContaining(CheckpointingOptions.SAVEPOINT_PATH.key())
        .hasMessageContaining(missing.toString())
        .hasMessageContaining("does not exist");
    assertThat(tracker.opens()).isZero();
  }

  @Test
  void aForeignFileIsNotTakenForACheckpoint() throws Exception {
    Path foreign = scratch.resolve("notes.txt");
    Files.writeString(foreign, "these are not the checkpoints you are looking for\n");
    OpenTracker tracker = new OpenTracker();
    StreamEnvironment env = jobWithTracker(tracker);
    env.getConfiguration().set(CheckpointingOptions.SAVEPOINT_PATH, foreign.toString());

    assertThatThrownBy(() -> env.execute("foreign-file"))
        .hasMessageContaining(CheckpointingOptions.SAVEPOINT_PATH.key())
        .hasMessageContaining(foreign.toString())
        .hasMessageContaining("not a Weir checkpoint");
    assertThat(tracker.opens()).isZero();
  }

  @Test
  void aForeignDirectoryIsNotTakenForACheckpoint() throws Exception {
    Path foreign = Files.createDirectories(scratch.resolve("some-dir"));
    Files.writeString(foreign.resolve("data.bin"), "x");
    OpenTracker tracker = new OpenTracker();
    StreamEnvironment env = jobWithTracker(tracker);
    env.getConfiguration().set(CheckpointingOptions.SAVEPOINT_PATH, foreign.toString());

    assertThatThrownBy(() -> env.execute("foreign-dir"))
        .hasMessageContaining(foreign.toString())
        .hasMessageContaining("_metadata")
        .hasMessageContaining("not a completed Weir checkpoint");
    assertThat(tracker.opens()).isZero();
  }

  @Test
  void stateOfAnOperatorTheJobLacksIsRejectedNamingItsUid() {
    OpenTracker tracker = new OpenTracker();
    StreamEnvironment env = jobWithTracker(tracker); // has "source" but no "counter"
    env.getConfiguration().set(CheckpointingOptions.SAVEPOINT_PATH, retained.toString());

    assertThatThrownBy(() -> env.execute("unclaimed"))
        .hasMessageContaining("counter")
        .hasMessageContaining(CheckpointingOptions.SAVEPOINT_IGNORE_UNCLAIMED_STATE.key());
    assertThat(tracker.opens()).isZero();
  }

  @Test
  void unclaimedStateIsDroppedWhenAllowed() throws Exception {
    OpenTracker tracker = new OpenTracker();
    StreamEnvironment env = StreamEnvironment.create();
    env.setParallelism(1);
    CollectSink<Long> sink = new CollectSink<>();
    env.fromSource(CountingSource.bounded(FIRST + 5), "numbers", Types.LONG)
        .uid("source")
        .map(tracker)
        .uid("tracker")
        .sinkTo(sink);
    env.getConfiguration().set(CheckpointingOptions.SAVEPOINT_PATH, retained.toString());
    env.getConfiguration().set(CheckpointingOptions.SAVEPOINT_IGNORE_UNCLAIMED_STATE, true);

    JobExecutionResult result = env.execute("unclaimed-ignored");

    assertThat(tracker.opens()).isEqualTo(1);
    assertThat(sink.results())
        .as("the source state (uid 'source') was still restored: only the new records")
        .containsExactly(50L, 51L, 52L, 53L, 54L);
    assertThat(result.metrics().get("job.lastRestoredCheckpoint"))
        .isEqualTo(Long.parseLong(retained.getFileName().toString().substring(4)));
  }

  @Test
  void aStorageUriWithAnUnknownSchemeIsRejectedNamingTheScheme() {
    OpenTracker tracker = new OpenTracker();
    StreamEnvironment env = jobWithTracker(tracker);
    env.enableCheckpointing(Duration.ofMillis(50));
    env.getConfiguration().setString("execution.checkpointing.dir", "foo://x/checkpoints");

    assertThatThrownBy(() -> env.execute("unknown-scheme"))
        .hasMessageContaining("foo://x/checkpoints")
        .hasMessageContaining("'foo'")
        .hasMessageContaining("not supported");
    assertThat(tracker.opens()).isZero();
  }

  @Test
  void aStorageUriWithAnUnknownSchemeAndNoPathIsRejectedNamingTheScheme() {
    // foo://x is what a user types for "some storage x": the problem to report is the scheme.
    // Reporting only that it names "the root of a file system" and suggesting
    // foo://x/weir/checkpoints sends the user to a second failure.
    OpenTracker tracker = new OpenTracker();
    StreamEnvironment env = jobWithTracker(tracker);
    env.enableCheckpointing(Duration.ofMillis(50));

    Throwable fromSetter = null;
    try {
      env.getCheckpointConfig().setCheckpointStorage("foo://x");
    } catch (IllegalArgumentException e) {
      fromSetter = e;
    }
    Throwable error = fromSetter;
    if (error == null) {
      try {
        env.execute("unknown-scheme-setter");
      } catch (Exception e) {
        error = e;
      }
    }
    assertThat(error).isNotNull();
    assertThat(error.getMessage()).contains("foo://x").contains("'foo'").contains("not supported");
    assertThat(tracker.opens()).isZero();
  }

  @Test
  void aMinPauseWithTwoConcurrentCheckpointsIsAConflict() {
    // The typed setters refuse it at once ...
    StreamEnvironment typed = StreamEnvironment.create();
    typed.getCheckpointConfig().setMaxConcurrentCheckpoints(2);
    assertThatThrownBy(
            () -> typed.getCheckpointConfig().setMinPauseBetweenCheckpoints(Duration.ofMillis(100)))
        .hasMessageContaining(CheckpointingOptions.MIN_PAUSE_BETWEEN_CHECKPOINTS.key())
        .hasMessageContaining(CheckpointingOptions.MAX_CONCURRENT_CHECKPOINTS.key());

    // ... and the same keys from a configuration file fail the submission.
    OpenTracker tracker = new OpenTracker();
    StreamEnvironment env = jobWithTracker(tracker);
    env.getConfiguration().setString("execution.checkpointing.interval", "50 ms");
    env.getConfiguration().setString("execution.checkpointing.min-pause", "100 ms");
    env.getConfiguration().setString("execution.checkpointing.max-concurrent-checkpoints", "2");

    assertThatThrownBy(() -> env.execute("conflict"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining(CheckpointingOptions.MIN_PAUSE_BETWEEN_CHECKPOINTS.key())
        .hasMessageContaining(CheckpointingOptions.MAX_CONCURRENT_CHECKPOINTS.key());
    assertThat(tracker.opens()).isZero();
  }
}

package io.weir.runtime.recovery;

import static io.weir.runtime.recovery.RecoveryTestSupport.WAIT;
import static io.weir.runtime.recovery.RecoveryTestSupport.completedIds;
import static io.weir.runtime.recovery.RecoveryTestSupport.expectedCounts;
import static io.weir.runtime.recovery.RecoveryTestSupport.finalCounts;
import static io.weir.runtime.recovery.RecoveryTestSupport.jobDir;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.weir.api.JobClient;
import io.weir.api.StreamEnvironment;
import io.weir.api.config.CheckpointingOptions;
import io.weir.api.config.Configuration;
import io.weir.runtime.api.CollectSink;
import io.weir.runtime.recovery.RecoveryTestSupport.Count;
import io.weir.runtime.recovery.RecoveryTestSupport.CountingSource;
import io.weir.runtime.recovery.RecoveryTestSupport.LogCapture;
import io.weir.runtime.testing.matrix.TestMatrix;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A Flink configuration file that names the checkpoint directory with one of Flink's older keys
 * checkpoints into that directory, as it would with {@code execution.checkpointing.dir}, and the
 * job warns once naming the key to use: a job must not fall back to JobManager storage and leave
 * nothing to resume from when its process dies.
 */
@Timeout(60)
@TestMatrix
class DeprecatedCheckpointKeysTest {

  static final long PER_SPLIT = 200;

  @TempDir Path yamlDir;
  @TempDir Path checkpoints;

  @ParameterizedTest
  @ValueSource(strings = {"state.checkpoints.dir", "state.backend.fs.checkpointdir"})
  void aDeprecatedDirectoryKeyInYamlCheckpointsIntoThatDirectoryAndWarnsOnce(String key)
      throws Exception {
    Path yaml = yamlDir.resolve("config.yaml");
    Files.writeString(
        yaml,
        "execution.checkpointing.interval: 20 ms\n"
            + key
            + ": "
            + checkpoints.toUri()
            + "\n"
            + "execution.checkpointing.externalized-checkpoint-retention:"
            + " RETAIN_ON_CANCELLATION\n");
    StreamEnvironment env = StreamEnvironment.create(Configuration.fromYaml(yaml));
    env.setParallelism(2);
    env.setBufferTimeout(Duration.ZERO);
    CountingSource source = CountingSource.unbounded(PER_SPLIT);
    CollectSink<Count> sink = new CollectSink<>();
    RestoreFromRetainedCheckpointTest.countPipeline(env, source).sinkTo(sink);

    JobClient client;
    Path jobDir;
    try (LogCapture log = new LogCapture(RestoreFromRetainedCheckpointTest.LOCAL_JOB)) {
      client = env.executeAsync("deprecated-dir-key");
      jobDir = jobDir(checkpoints, client);
      // One checkpoint is retained at a time: wait for the second to have completed.
      await()
          .atMost(WAIT)
          .until(() -> !completedIds(jobDir).isEmpty() && completedIds(jobDir).last() >= 2);
      assertThat(log.warnings())
          .filteredOn(m -> m.contains("'" + key + "' is deprecated"))
          .containsExactly(
              "Job 'deprecated-dir-key': Configuration key '"
                  + key
                  + "' is deprecated: use 'execution.checkpointing.dir' instead");
    }
    long total = PER_SPLIT * 2;
    RecoveryTestSupport.awaitCoveringCheckpoint(jobDir, source, total);
    client.cancel().get(30, TimeUnit.SECONDS);
    assertThat(finalCounts(sink.results())).isEqualTo(expectedCounts(total, 7));

    // What a person does after the process died: resume from the job's checkpoint directory.
    StreamEnvironment resumed = StreamEnvironment.create();
    resumed.setParallelism(2);
    resumed.getConfiguration().set(CheckpointingOptions.SAVEPOINT_PATH, jobDir.toUri().toString());
    CollectSink<Count> after = new CollectSink<>();
    RestoreFromRetainedCheckpointTest.countPipeline(resumed, CountingSource.bounded(PER_SPLIT))
        .sinkTo(after);
    resumed.execute("resumed");

    assertThat(after.size())
        .as("every record was in the retained checkpoint: nothing is counted again")
        .isZero();
  }
}

package io.weir.runtime.recovery;

import static io.weir.runtime.recovery.RecoveryTestSupport.chainMessages;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import io.weir.api.CheckpointConfig;
import io.weir.api.JobClient;
import io.weir.api.JobExecutionException;
import io.weir.api.JobExecutionResult;
import io.weir.api.StreamEnvironment;
import io.weir.api.config.Configuration;
import io.weir.api.functions.RichMapFunction;
import io.weir.api.sink.DiscardingSink;
import io.weir.runtime.testing.matrix.TestMatrix;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@code execution.checkpointing.interval} of zero or below means "checkpointing is off", however
 * it arrives: set in a {@link Configuration}, read from YAML, or given as {@code -D}. Off means no
 * checkpoint at all and the restart default of a job without checkpoints (none).
 */
@Timeout(60)
@TestMatrix
class CheckpointingOffTest {

  @TempDir Path dir;

  /** Throws on its first element, once per test; counts how often it threw. */
  static final class FailsOnce extends RichMapFunction<Long, Long> {
    private static final long serialVersionUID = 1L;
    static final ConcurrentHashMap<String, AtomicInteger> FAILURES = new ConcurrentHashMap<>();
    private final String id = UUID.randomUUID().toString();

    FailsOnce() {
      FAILURES.put(id, new AtomicInteger());
    }

    @Override
    public Long map(Long value) {
      if (FAILURES.get(id).getAndIncrement() == 0) {
        throw new IllegalStateException("the one failure");
      }
      return value;
    }

    int failures() {
      return FAILURES.get(id).get();
    }
  }

  private static JobClient runBounded(StreamEnvironment env) throws Exception {
    env.setParallelism(1);
    env.fromSequence(1, 200_000).map(v -> v * 2).sinkTo(new DiscardingSink<>());
    return env.executeAsync("checkpointing-off");
  }

  private static void assertNoCheckpoints(JobClient client) throws Exception {
    JobExecutionResult result = client.getJobExecutionResult().get();
    assertThat(client.getCheckpointStatistics()).isEmpty();
    assertThat(result.metrics()).doesNotContainKey("job.checkpoints.lastId");
  }

  @ParameterizedTest
  @ValueSource(strings = {"0", "0 ms", "-1 s", "-100"})
  void aZeroOrNegativeIntervalInAConfigurationTakesNoCheckpoint(String interval) throws Exception {
    Configuration conf = new Configuration();
    conf.setString("execution.checkpointing.interval", interval);
    assertThat(CheckpointConfig.isCheckpointingEnabled(conf)).isFalse();
    assertNoCheckpoints(runBounded(StreamEnvironment.create(conf)));
  }

  @ParameterizedTest
  @ValueSource(strings = {"0", "0 ms", "-1 s", "-100"})
  void aZeroOrNegativeIntervalInYamlTakesNoCheckpoint(String interval) throws Exception {
    Path yaml = dir.resolve("weir.yaml");
    Files.writeString(yaml, "execution.checkpointing.interval: " + interval + "\n");
    assertNoCheckpoints(runBounded(StreamEnvironment.create(Configuration.fromYaml(yaml))));
  }

  @ParameterizedTest
  @ValueSource(strings = {"0", "-1 s"})
  void aZeroOrNegativeIntervalAsSystemPropertyTakesNoCheckpoint(String interval) throws Exception {
    String key = "execution.checkpointing.interval";
    String before = System.getProperty(key);
    System.setProperty(key, interval);
    StreamEnvironment env;
    try {
      env = StreamEnvironment.create();
    } finally {
      if (before == null) {
        System.clearProperty(key);
      } else {
        System.setProperty(key, before);
      }
    }
    assertNoCheckpoints(runBounded(env));
  }

  @Test
  void anIntervalOfZeroKeepsTheRestartDefaultOfAJobWithoutCheckpoints() {
    Configuration conf = new Configuration();
    conf.setString("execution.checkpointing.interval", "0");
    StreamEnvironment env = StreamEnvironment.create(conf);
    env.setParallelism(1);
    FailsOnce fails = new FailsOnce();
    env.fromSequence(1, 100).map(fails).sinkTo(new DiscardingSink<>());

    Throwable error = catchThrowable(() -> env.execute("no-restart-by-default"));

    // With checkpointing off the default is no restart: the one failure fails the job.
    assertThat(error).isInstanceOf(JobExecutionException.class);
    assertThat(chainMessages(error)).contains("the one failure");
    assertThat(fails.failures()).isEqualTo(1);
  }
}

package io.weir.api.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.weir.api.CheckpointingMode;
import io.weir.api.ExternalizedCheckpointRetention;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class CheckpointingOptionsTest {

  @Test
  void checkpointingKeysAndDefaultsAreFlink2s() {
    Configuration c = new Configuration();
    assertThat(CheckpointingOptions.CHECKPOINTING_INTERVAL.key())
        .isEqualTo("execution.checkpointing.interval");
    assertThat(c.getOptional(CheckpointingOptions.CHECKPOINTING_INTERVAL)).isEmpty();
    assertThat(c.get(CheckpointingOptions.CHECKPOINTING_CONSISTENCY_MODE))
        .isEqualTo(CheckpointingMode.EXACTLY_ONCE);
    assertThat(c.get(CheckpointingOptions.CHECKPOINTING_TIMEOUT)).isEqualTo(Duration.ofMinutes(10));
    assertThat(c.get(CheckpointingOptions.MIN_PAUSE_BETWEEN_CHECKPOINTS)).isEqualTo(Duration.ZERO);
    assertThat(c.get(CheckpointingOptions.MAX_CONCURRENT_CHECKPOINTS)).isEqualTo(1);
    assertThat(c.get(CheckpointingOptions.TOLERABLE_FAILURE_NUMBER)).isZero();
    assertThat(c.get(CheckpointingOptions.ENABLE_UNALIGNED)).isFalse();
    assertThat(c.get(CheckpointingOptions.ALIGNED_CHECKPOINT_TIMEOUT)).isEqualTo(Duration.ZERO);
    assertThat(c.get(CheckpointingOptions.EXTERNALIZED_CHECKPOINT_RETENTION))
        .isEqualTo(ExternalizedCheckpointRetention.NO_EXTERNALIZED_CHECKPOINTS);
    assertThat(c.get(CheckpointingOptions.MAX_RETAINED_CHECKPOINTS)).isEqualTo(1);
    assertThat(c.getOptional(CheckpointingOptions.CHECKPOINT_STORAGE)).isEmpty();
    assertThat(c.getOptional(CheckpointingOptions.CHECKPOINTS_DIRECTORY)).isEmpty();
    assertThat(c.get(CheckpointingOptions.INCREMENTAL_CHECKPOINTS)).isFalse();
    assertThat(c.get(CheckpointingOptions.FS_SMALL_FILE_THRESHOLD).bytes()).isEqualTo(20 * 1024);
    assertThat(c.getOptional(CheckpointingOptions.SAVEPOINT_DIRECTORY)).isEmpty();
    assertThat(c.get(CheckpointingOptions.JOBMANAGER_MAX_STATE_SIZE).bytes()).isEqualTo(5 << 20);
    assertThat(c.get(CheckpointingOptions.STATE_BACKEND)).isEqualTo("hashmap");
    assertThat(c.getOptional(CheckpointingOptions.SAVEPOINT_PATH)).isEmpty();
    assertThat(c.get(CheckpointingOptions.SAVEPOINT_IGNORE_UNCLAIMED_STATE)).isFalse();
  }

  @Test
  void everyKeyIsFlinks() {
    assertThat(
            java.util.List.of(
                CheckpointingOptions.CHECKPOINTING_CONSISTENCY_MODE.key(),
                CheckpointingOptions.CHECKPOINTING_TIMEOUT.key(),
                CheckpointingOptions.MIN_PAUSE_BETWEEN_CHECKPOINTS.key(),
                CheckpointingOptions.MAX_CONCURRENT_CHECKPOINTS.key(),
                CheckpointingOptions.TOLERABLE_FAILURE_NUMBER.key(),
                CheckpointingOptions.ENABLE_UNALIGNED.key(),
                CheckpointingOptions.ALIGNED_CHECKPOINT_TIMEOUT.key(),
                CheckpointingOptions.EXTERNALIZED_CHECKPOINT_RETENTION.key(),
                CheckpointingOptions.MAX_RETAINED_CHECKPOINTS.key(),
                CheckpointingOptions.CHECKPOINT_STORAGE.key(),
                CheckpointingOptions.CHECKPOINTS_DIRECTORY.key(),
                CheckpointingOptions.INCREMENTAL_CHECKPOINTS.key(),
                CheckpointingOptions.FS_SMALL_FILE_THRESHOLD.key(),
                CheckpointingOptions.SAVEPOINT_DIRECTORY.key(),
                CheckpointingOptions.STATE_BACKEND.key(),
                CheckpointingOptions.SAVEPOINT_PATH.key(),
                CheckpointingOptions.SAVEPOINT_IGNORE_UNCLAIMED_STATE.key()))
        .containsExactly(
            "execution.checkpointing.mode",
            "execution.checkpointing.timeout",
            "execution.checkpointing.min-pause",
            "execution.checkpointing.max-concurrent-checkpoints",
            "execution.checkpointing.tolerable-failed-checkpoints",
            "execution.checkpointing.unaligned.enabled",
            "execution.checkpointing.aligned-checkpoint-timeout",
            "execution.checkpointing.externalized-checkpoint-retention",
            "execution.checkpointing.num-retained",
            "execution.checkpointing.storage",
            "execution.checkpointing.dir",
            "execution.checkpointing.incremental",
            "execution.checkpointing.data-inline-threshold",
            "execution.checkpointing.savepoint-dir",
            "state.backend.type",
            "execution.state-recovery.path",
            "execution.state-recovery.ignore-unclaimed-state");
  }

  @Test
  void yamlStyleTextParsesIntoTypedValues() {
    Configuration c =
        new Configuration()
            .setString("execution.checkpointing.interval", "10 s")
            .setString("execution.checkpointing.mode", "at-least-once")
            .setString("execution.checkpointing.timeout", "10 min")
            .setString("execution.checkpointing.min-pause", "500 ms")
            .setString("execution.checkpointing.unaligned.enabled", "TRUE")
            .setString(
                "execution.checkpointing.externalized-checkpoint-retention",
                "retain_on_cancellation")
            .setString("execution.checkpointing.data-inline-threshold", "1 mb");
    assertThat(c.get(CheckpointingOptions.CHECKPOINTING_INTERVAL))
        .isEqualTo(Duration.ofSeconds(10));
    assertThat(c.get(CheckpointingOptions.CHECKPOINTING_CONSISTENCY_MODE))
        .isEqualTo(CheckpointingMode.AT_LEAST_ONCE);
    assertThat(c.get(CheckpointingOptions.CHECKPOINTING_TIMEOUT)).isEqualTo(Duration.ofMinutes(10));
    assertThat(c.get(CheckpointingOptions.MIN_PAUSE_BETWEEN_CHECKPOINTS))
        .isEqualTo(Duration.ofMillis(500));
    assertThat(c.get(CheckpointingOptions.ENABLE_UNALIGNED)).isTrue();
    assertThat(c.get(CheckpointingOptions.EXTERNALIZED_CHECKPOINT_RETENTION))
        .isEqualTo(ExternalizedCheckpointRetention.RETAIN_ON_CANCELLATION);
    assertThat(c.get(CheckpointingOptions.FS_SMALL_FILE_THRESHOLD).bytes()).isEqualTo(1 << 20);
  }

  @Test
  void typedValuesRoundTripThroughText() {
    Configuration c = new Configuration();
    c.set(CheckpointingOptions.CHECKPOINTING_TIMEOUT, Duration.ofMinutes(3));
    c.set(CheckpointingOptions.CHECKPOINTING_CONSISTENCY_MODE, CheckpointingMode.AT_LEAST_ONCE);
    c.set(
        CheckpointingOptions.EXTERNALIZED_CHECKPOINT_RETENTION,
        ExternalizedCheckpointRetention.DELETE_ON_CANCELLATION);
    c.set(CheckpointingOptions.FS_SMALL_FILE_THRESHOLD, MemorySize.parse("64 kb"));
    assertThat(c.getString("execution.checkpointing.timeout", null)).isEqualTo("3 min");
    Configuration copy = new Configuration();
    c.toMap().forEach(copy::setString);
    assertThat(copy.get(CheckpointingOptions.CHECKPOINTING_TIMEOUT))
        .isEqualTo(Duration.ofMinutes(3));
    assertThat(copy.get(CheckpointingOptions.CHECKPOINTING_CONSISTENCY_MODE))
        .isEqualTo(CheckpointingMode.AT_LEAST_ONCE);
    assertThat(copy.get(CheckpointingOptions.EXTERNALIZED_CHECKPOINT_RETENTION))
        .isEqualTo(ExternalizedCheckpointRetention.DELETE_ON_CANCELLATION);
    assertThat(copy.get(CheckpointingOptions.FS_SMALL_FILE_THRESHOLD).bytes()).isEqualTo(64 * 1024);
  }

  @Test
  void flink1KeysAreReadWhenTheNewOnesAreUnset() {
    Configuration c =
        new Configuration()
            .setString("state.checkpoints.dir", "file:///old/checkpoints")
            .setString("state.checkpoints.num-retained", "3")
            .setString("state.backend", "rocksdb")
            .setString("execution.savepoint.path", "file:///old/savepoint-1")
            .setString("execution.checkpointing.unaligned", "true");
    assertThat(c.get(CheckpointingOptions.CHECKPOINTS_DIRECTORY))
        .isEqualTo("file:///old/checkpoints");
    assertThat(c.get(CheckpointingOptions.MAX_RETAINED_CHECKPOINTS)).isEqualTo(3);
    assertThat(c.get(CheckpointingOptions.STATE_BACKEND)).isEqualTo("rocksdb");
    assertThat(c.get(CheckpointingOptions.SAVEPOINT_PATH)).isEqualTo("file:///old/savepoint-1");
    assertThat(c.get(CheckpointingOptions.ENABLE_UNALIGNED)).isTrue();

    c.setString("execution.checkpointing.num-retained", "5");
    assertThat(c.get(CheckpointingOptions.MAX_RETAINED_CHECKPOINTS)).isEqualTo(5);
  }

  @Test
  void aBadEnumValueNamesKeyValueAndChoices() {
    Configuration c = new Configuration().setString("execution.checkpointing.mode", "twice");
    assertThatThrownBy(() -> c.get(CheckpointingOptions.CHECKPOINTING_CONSISTENCY_MODE))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("execution.checkpointing.mode")
        .hasMessageContaining("twice")
        .hasMessageContaining("EXACTLY_ONCE, AT_LEAST_ONCE");
  }

  @Test
  void nestedYamlFileReachesTheOptions(@TempDir Path dir) throws Exception {
    Path file = dir.resolve("config.yaml");
    Files.writeString(
        file,
        String.join(
            "\n",
            "execution:",
            "  checkpointing:",
            "    interval: 30 s",
            "    timeout: 2 min",
            "    storage: filesystem",
            "    dir: file:///var/weir/checkpoints",
            "restart-strategy:",
            "  type: fixed-delay",
            "  fixed-delay:",
            "    attempts: 3",
            "    delay: 10 s",
            ""));
    Configuration c = Configuration.fromYaml(file);
    assertThat(c.get(CheckpointingOptions.CHECKPOINTING_INTERVAL))
        .isEqualTo(Duration.ofSeconds(30));
    assertThat(c.get(CheckpointingOptions.CHECKPOINTING_TIMEOUT)).isEqualTo(Duration.ofMinutes(2));
    assertThat(c.get(CheckpointingOptions.CHECKPOINTS_DIRECTORY))
        .isEqualTo("file:///var/weir/checkpoints");
    assertThat(c.get(RestartStrategyOptions.RESTART_STRATEGY)).isEqualTo("fixed-delay");
    assertThat(c.get(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_ATTEMPTS)).isEqualTo(3);
    assertThat(c.get(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_DELAY))
        .isEqualTo(Duration.ofSeconds(10));
  }

  @Test
  void restartKeysAndDefaultsAreFlink2s() {
    Configuration c = new Configuration();
    assertThat(c.getOptional(RestartStrategyOptions.RESTART_STRATEGY)).isEmpty();
    assertThat(RestartStrategyOptions.RESTART_STRATEGY.key()).isEqualTo("restart-strategy.type");
    assertThat(c.get(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_ATTEMPTS)).isEqualTo(1);
    assertThat(c.get(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_DELAY))
        .isEqualTo(Duration.ofSeconds(1));
    assertThat(c.get(RestartStrategyOptions.RESTART_STRATEGY_EXPONENTIAL_DELAY_INITIAL_BACKOFF))
        .isEqualTo(Duration.ofSeconds(1));
    assertThat(c.get(RestartStrategyOptions.RESTART_STRATEGY_EXPONENTIAL_DELAY_MAX_BACKOFF))
        .isEqualTo(Duration.ofMinutes(1));
    assertThat(c.get(RestartStrategyOptions.RESTART_STRATEGY_EXPONENTIAL_DELAY_BACKOFF_MULTIPLIER))
        .isEqualTo(1.5);
    assertThat(
            c.get(
                RestartStrategyOptions.RESTART_STRATEGY_EXPONENTIAL_DELAY_RESET_BACKOFF_THRESHOLD))
        .isEqualTo(Duration.ofHours(1));
    assertThat(c.get(RestartStrategyOptions.RESTART_STRATEGY_EXPONENTIAL_DELAY_JITTER_FACTOR))
        .isEqualTo(0.1);
    assertThat(c.get(RestartStrategyOptions.RESTART_STRATEGY_EXPONENTIAL_DELAY_ATTEMPTS))
        .isEqualTo(Integer.MAX_VALUE);
    assertThat(
            c.get(RestartStrategyOptions.RESTART_STRATEGY_FAILURE_RATE_MAX_FAILURES_PER_INTERVAL))
        .isEqualTo(1);
    assertThat(c.get(RestartStrategyOptions.RESTART_STRATEGY_FAILURE_RATE_FAILURE_RATE_INTERVAL))
        .isEqualTo(Duration.ofMinutes(1));
    assertThat(c.get(RestartStrategyOptions.RESTART_STRATEGY_FAILURE_RATE_DELAY))
        .isEqualTo(Duration.ofSeconds(1));
  }

  @Test
  void everyFlinkSpellingOfARestartTypeIsAcceptedAndCanonicalized() {
    String[][] cases = {
      {"none", "none"},
      {"disable", "none"},
      {"off", "none"},
      {"fixed-delay", "fixed-delay"},
      {"fixeddelay", "fixed-delay"},
      {"Exponential-Delay", "exponential-delay"},
      {"exponentialdelay", "exponential-delay"},
      {"failure-rate", "failure-rate"},
      {" failurerate ", "failure-rate"},
    };
    for (String[] c : cases) {
      Configuration conf = new Configuration().setString("restart-strategy.type", c[0]);
      assertThat(conf.get(RestartStrategyOptions.RESTART_STRATEGY)).as(c[0]).isEqualTo(c[1]);
    }
    // Flink 1.x's key.
    Configuration old = new Configuration().setString("restart-strategy", "fixeddelay");
    assertThat(old.get(RestartStrategyOptions.RESTART_STRATEGY)).isEqualTo("fixed-delay");
  }

  @Test
  void anUnknownRestartTypeNamesKeyValueAndTheAcceptedValues() {
    Configuration c = new Configuration().setString("restart-strategy.type", "sometimes");
    assertThatThrownBy(() -> c.get(RestartStrategyOptions.RESTART_STRATEGY))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("restart-strategy.type")
        .hasMessageContaining("'sometimes'")
        .hasMessageContaining(
            "none, disable, off, fixed-delay, fixeddelay, exponential-delay, exponentialdelay,"
                + " failure-rate, failurerate");
  }
}

package io.weir.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.weir.api.config.CheckpointingOptions;
import io.weir.api.config.Configuration;
import java.time.Duration;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.LongRange;
import org.junit.jupiter.api.Test;

class CheckpointConfigTest {

  private final Configuration conf = new Configuration();
  private final CheckpointConfig config = new CheckpointConfig(conf);

  @Test
  void defaultsAreFlinksAndCheckpointingIsOff() {
    assertThat(config.isCheckpointingEnabled()).isFalse();
    assertThat(config.getCheckpointInterval()).isEqualTo(Duration.ZERO);
    assertThat(config.getCheckpointingMode()).isEqualTo(CheckpointingMode.EXACTLY_ONCE);
    assertThat(config.getCheckpointTimeout()).isEqualTo(Duration.ofMinutes(10));
    assertThat(config.getMinPauseBetweenCheckpoints()).isEqualTo(Duration.ZERO);
    assertThat(config.getMaxConcurrentCheckpoints()).isEqualTo(1);
    assertThat(config.getTolerableCheckpointFailureNumber()).isZero();
    assertThat(config.isUnalignedCheckpointsEnabled()).isFalse();
    assertThat(config.getAlignedCheckpointTimeout()).isEqualTo(Duration.ZERO);
    assertThat(config.getExternalizedCheckpointRetention())
        .isEqualTo(ExternalizedCheckpointRetention.NO_EXTERNALIZED_CHECKPOINTS);
    assertThat(config.isExternalizedCheckpointsEnabled()).isFalse();
    assertThat(config.getNumRetainedCheckpoints()).isEqualTo(1);
    assertThat(config.getCheckpointStorage()).isEqualTo("jobmanager");
    assertThat(config.getCheckpointDirectory()).isEmpty();
    assertThatCode(() -> CheckpointConfig.validate(conf)).doesNotThrowAnyException();
  }

  @Test
  void theFluentChainOfTheDesignWritesFlinksKeys() {
    config
        .setCheckpointingMode(CheckpointingMode.EXACTLY_ONCE)
        .setCheckpointTimeout(Duration.ofMinutes(1))
        .setMinPauseBetweenCheckpoints(Duration.ofMillis(500))
        .setMaxConcurrentCheckpoints(1)
        .setTolerableCheckpointFailureNumber(3)
        .enableUnalignedCheckpoints()
        .setAlignedCheckpointTimeout(Duration.ofMillis(100))
        .setExternalizedCheckpointRetention(ExternalizedCheckpointRetention.RETAIN_ON_CANCELLATION)
        .setNumRetainedCheckpoints(2)
        .setCheckpointStorage("file:///var/weir/checkpoints");

    assertThat(conf.toMap())
        .containsEntry("execution.checkpointing.mode", "EXACTLY_ONCE")
        .containsEntry("execution.checkpointing.timeout", "1 min")
        .containsEntry("execution.checkpointing.min-pause", "500 ms")
        .containsEntry("execution.checkpointing.max-concurrent-checkpoints", "1")
        .containsEntry("execution.checkpointing.tolerable-failed-checkpoints", "3")
        .containsEntry("execution.checkpointing.unaligned.enabled", "true")
        .containsEntry("execution.checkpointing.aligned-checkpoint-timeout", "100 ms")
        .containsEntry(
            "execution.checkpointing.externalized-checkpoint-retention", "RETAIN_ON_CANCELLATION")
        .containsEntry("execution.checkpointing.num-retained", "2")
        .containsEntry("execution.checkpointing.storage", "filesystem")
        .containsEntry("execution.checkpointing.dir", "file:///var/weir/checkpoints");

    // A fresh view over the same settings reads them all back.
    CheckpointConfig reread = new CheckpointConfig(new Configuration(conf));
    assertThat(reread.getCheckpointTimeout()).isEqualTo(Duration.ofMinutes(1));
    assertThat(reread.getMinPauseBetweenCheckpoints()).isEqualTo(Duration.ofMillis(500));
    assertThat(reread.getTolerableCheckpointFailureNumber()).isEqualTo(3);
    assertThat(reread.isUnalignedCheckpointsEnabled()).isTrue();
    assertThat(reread.getAlignedCheckpointTimeout()).isEqualTo(Duration.ofMillis(100));
    assertThat(reread.getExternalizedCheckpointRetention())
        .isEqualTo(ExternalizedCheckpointRetention.RETAIN_ON_CANCELLATION);
    assertThat(reread.isExternalizedCheckpointsEnabled()).isTrue();
    assertThat(reread.getNumRetainedCheckpoints()).isEqualTo(2);
    assertThat(reread.getCheckpointStorage()).isEqualTo("filesystem");
    assertThat(reread.getCheckpointDirectory()).contains("file:///var/weir/checkpoints");
    assertThatCode(() -> CheckpointConfig.validate(conf)).doesNotThrowAnyException();
  }

  @Test
  void intervalBelowTenMillisIsRejected() {
    assertThatThrownBy(() -> config.setCheckpointInterval(Duration.ofMillis(9)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "The checkpoint interval (execution.checkpointing.interval) must be at least 10 ms"
                + " (leave it unset to turn checkpointing off), but was 9 ms.");
    assertThatThrownBy(() -> config.setCheckpointInterval(Duration.ZERO))
        .hasMessageContaining("execution.checkpointing.interval")
        .hasMessageContaining("but was 0 ms");
    assertThatThrownBy(() -> config.setCheckpointInterval(Duration.ofMillis(-5)))
        .hasMessageContaining("but was -5 ms");
    config.setCheckpointInterval(Duration.ofMillis(10));
    assertThat(config.isCheckpointingEnabled()).isTrue();
    assertThat(config.getCheckpointInterval()).isEqualTo(Duration.ofMillis(10));
  }

  @Test
  void intervalFromTextIsCheckedByValidateAndZeroOrNegativeMeansOff() {
    conf.setString("execution.checkpointing.interval", "5 ms");
    assertThatThrownBy(() -> CheckpointConfig.validate(conf))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("execution.checkpointing.interval")
        .hasMessageContaining("5 ms");

    // Flink 1.x's configuration template writes -1 for "off".
    conf.setString("execution.checkpointing.interval", "-1");
    assertThatCode(() -> CheckpointConfig.validate(conf)).doesNotThrowAnyException();
    assertThat(config.isCheckpointingEnabled()).isFalse();
    assertThat(config.getCheckpointInterval()).isEqualTo(Duration.ZERO);

    conf.setString("execution.checkpointing.interval", "1 min");
    assertThat(config.isCheckpointingEnabled()).isTrue();
    assertThat(config.getCheckpointInterval()).isEqualTo(Duration.ofMinutes(1));
  }

  @Test
  void timeoutMustBePositive() {
    assertThatThrownBy(() -> config.setCheckpointTimeout(Duration.ZERO))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "The checkpoint timeout (execution.checkpointing.timeout) must be positive, but was"
                + " 0 ms.");
    assertThatThrownBy(() -> config.setCheckpointTimeout(Duration.ofSeconds(-1)))
        .hasMessage(
            "The checkpoint timeout (execution.checkpointing.timeout) must be positive, but was"
                + " -1 s.");
    conf.setString("execution.checkpointing.timeout", "0 s");
    assertThatThrownBy(() -> CheckpointConfig.validate(conf))
        .hasMessageContaining("execution.checkpointing.timeout");
  }

  @Test
  void minPauseMustNotBeNegative() {
    assertThatThrownBy(() -> config.setMinPauseBetweenCheckpoints(Duration.ofMillis(-1)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "The min pause between checkpoints (execution.checkpointing.min-pause) must not be"
                + " negative, but was -1 ms.");
    config.setMinPauseBetweenCheckpoints(Duration.ZERO);
    assertThat(config.getMinPauseBetweenCheckpoints()).isEqualTo(Duration.ZERO);
  }

  @Test
  void maxConcurrentMustBeAtLeastOne() {
    assertThatThrownBy(() -> config.setMaxConcurrentCheckpoints(0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "The max concurrent checkpoints (execution.checkpointing.max-concurrent-checkpoints)"
                + " must be at least 1, but was 0.");
  }

  @Test
  void tolerableFailuresMustNotBeNegative() {
    assertThatThrownBy(() -> config.setTolerableCheckpointFailureNumber(-1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "The tolerable checkpoint failure number"
                + " (execution.checkpointing.tolerable-failed-checkpoints) must not be negative,"
                + " but was -1.");
    config.setTolerableCheckpointFailureNumber(0);
  }

  @Test
  void numRetainedMustBeAtLeastOne() {
    assertThatThrownBy(() -> config.setNumRetainedCheckpoints(0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "The number of retained checkpoints (execution.checkpointing.num-retained) must be at"
                + " least 1, but was 0.");
  }

  @Test
  void alignedTimeoutMustNotBeNegative() {
    assertThatThrownBy(() -> config.setAlignedCheckpointTimeout(Duration.ofMillis(-100)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "The aligned checkpoint timeout (execution.checkpointing.aligned-checkpoint-timeout)"
                + " must not be negative (0 starts unaligned at once), but was -100 ms.");
  }

  @Test
  void minPauseWithSeveralConcurrentCheckpointsIsRejectedInEitherOrder() {
    String expected =
        "A min pause between checkpoints (execution.checkpointing.min-pause = 500 ms) only works"
            + " with one checkpoint at a time, but"
            + " execution.checkpointing.max-concurrent-checkpoints is 2. Set the min pause to 0 or"
            + " the max concurrent checkpoints to 1.";

    config.setMinPauseBetweenCheckpoints(Duration.ofMillis(500));
    assertThatThrownBy(() -> config.setMaxConcurrentCheckpoints(2))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(expected);
    assertThat(config.getMaxConcurrentCheckpoints()).isEqualTo(1);

    CheckpointConfig other = new CheckpointConfig(new Configuration());
    other.setMaxConcurrentCheckpoints(2);
    assertThatThrownBy(() -> other.setMinPauseBetweenCheckpoints(Duration.ofMillis(500)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(expected);
    assertThat(other.getMinPauseBetweenCheckpoints()).isEqualTo(Duration.ZERO);

    // Zero pause and several concurrent checkpoints are fine.
    other.setMinPauseBetweenCheckpoints(Duration.ZERO).setMaxConcurrentCheckpoints(3);
  }

  @Test
  void theConflictIsCaughtInSettingsFromTextToo() {
    conf.setString("execution.checkpointing.min-pause", "1 s");
    conf.setString("execution.checkpointing.max-concurrent-checkpoints", "4");
    assertThatThrownBy(() -> CheckpointConfig.validate(conf))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("execution.checkpointing.min-pause = 1 s")
        .hasMessageContaining("execution.checkpointing.max-concurrent-checkpoints is 4");
  }

  @Test
  void validateReportsEachRangeWithItsKey() {
    String[][] bad = {
      {"execution.checkpointing.min-pause", "-1 ms"},
      {"execution.checkpointing.max-concurrent-checkpoints", "0"},
      {"execution.checkpointing.tolerable-failed-checkpoints", "-2"},
      {"execution.checkpointing.num-retained", "0"},
      {"execution.checkpointing.aligned-checkpoint-timeout", "-1 s"},
      {"execution.checkpointing.data-inline-threshold", "2 mb"},
      {"execution.checkpointing.jobmanager.max-state-size", "0"},
      {"execution.checkpointing.storage", "memory"},
      {"execution.checkpointing.dir", "relative/dir"},
      {"execution.checkpointing.savepoint-dir", "s3://bucket"},
      {"execution.state-recovery.path", " "},
      {"state.backend.type", "heap"},
      {"execution.checkpointing.mode", "sometimes"},
      {"execution.checkpointing.unaligned.enabled", "yes"},
      {"execution.checkpointing.incremental", "maybe"},
      {"execution.state-recovery.ignore-unclaimed-state", "1"},
      {"execution.checkpointing.externalized-checkpoint-retention", "forever"},
      {"restart-strategy.type", "sometimes"},
    };
    for (String[] entry : bad) {
      Configuration c = new Configuration().setString(entry[0], entry[1]);
      assertThatThrownBy(() -> CheckpointConfig.validate(c))
          .as(entry[0] + " = " + entry[1])
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining(entry[0])
          .hasMessageContaining(entry[1].trim());
    }
  }

  @Test
  void validateChecksTheRestartStrategyThatWouldBeUsed() {
    conf.setString("restart-strategy.exponential-delay.jitter-factor", "3");
    // Checkpointing off: the default strategy is none, so exponential-delay settings are unused.
    assertThatCode(() -> CheckpointConfig.validate(conf)).doesNotThrowAnyException();
    conf.setString("execution.checkpointing.interval", "1 s");
    assertThatThrownBy(() -> CheckpointConfig.validate(conf))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("restart-strategy.exponential-delay.jitter-factor")
        .hasMessageContaining("but was 3.0");
  }

  @Test
  void fileSystemStorageNeedsADirectory() {
    conf.setString("execution.checkpointing.storage", "filesystem");
    assertThatThrownBy(() -> CheckpointConfig.validate(conf))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "File system checkpoint storage (execution.checkpointing.storage = filesystem) needs a"
                + " directory: set execution.checkpointing.dir, e.g. to"
                + " file:///var/weir/checkpoints.");
    conf.setString("execution.checkpointing.dir", "hdfs://namenode:8020/weir/checkpoints");
    assertThatCode(() -> CheckpointConfig.validate(conf)).doesNotThrowAnyException();
  }

  @Test
  void storageIsFileSystemWhenOnlyADirectoryIsSetAsInFlink() {
    conf.setString("state.checkpoints.dir", "file:///tmp/chk");
    assertThat(config.getCheckpointStorage()).isEqualTo("filesystem");
    assertThat(config.getCheckpointDirectory()).contains("file:///tmp/chk");
  }

  @Test
  void checkpointStorageAcceptsUrisAbsolutePathsAndJobManager() {
    config.setCheckpointStorage("s3://bucket/weir/checkpoints");
    assertThat(config.getCheckpointStorage()).isEqualTo("filesystem");
    assertThat(config.getCheckpointDirectory()).contains("s3://bucket/weir/checkpoints");

    config.setCheckpointStorage("/var/weir/checkpoints");
    assertThat(config.getCheckpointDirectory()).contains("/var/weir/checkpoints");

    config.setCheckpointStorage("JobManager");
    assertThat(config.getCheckpointStorage()).isEqualTo("jobmanager");
    assertThat(config.getCheckpointDirectory()).isEmpty();
    assertThat(conf.toMap()).containsEntry("execution.checkpointing.storage", "jobmanager");
  }

  @Test
  void checkpointStorageRejectsWhatCannotBeADirectory() {
    assertThatThrownBy(() -> config.setCheckpointStorage("checkpoints"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "The checkpoint storage directory (execution.checkpointing.dir) must be an absolute"
                + " path or a URI with a scheme, such as file:///var/weir/checkpoints, but was"
                + " 'checkpoints'.");
    assertThatThrownBy(() -> config.setCheckpointStorage(""))
        .hasMessageContaining("execution.checkpointing.dir")
        .hasMessageContaining("but was ''");
    assertThatThrownBy(() -> config.setCheckpointStorage("file:///"))
        .hasMessageContaining("not the root of a file system")
        .hasMessageContaining("'file:///'");
    assertThatThrownBy(() -> config.setCheckpointStorage("hdfs://namenode:8020"))
        .hasMessageContaining("not the root of a file system")
        .hasMessageContaining("hdfs://namenode:8020/weir/checkpoints");
    assertThatThrownBy(() -> config.setCheckpointStorage("file:///has space|pipe"))
        .hasMessageContaining("must be a valid URI");
    assertThatThrownBy(() -> config.setCheckpointStorage("mailto:me@example.com"))
        .hasMessageContaining("hierarchical");
    assertThat(conf.toMap()).isEmpty();
  }

  @Test
  void unalignedAppliesOnlyToExactlyOnceAsInFlink() {
    config.enableUnalignedCheckpoints();
    assertThat(config.isUnalignedCheckpointsEnabled()).isTrue();
    config.setCheckpointingMode(CheckpointingMode.AT_LEAST_ONCE);
    assertThat(config.isUnalignedCheckpointsEnabled()).isFalse();
    config.setCheckpointingMode(CheckpointingMode.EXACTLY_ONCE).enableUnalignedCheckpoints(false);
    assertThat(config.isUnalignedCheckpointsEnabled()).isFalse();
  }

  @Test
  void environmentEnablesCheckpointingAndWritesBackendAndRestartStrategy() {
    StreamEnvironment env = StreamEnvironment.create(new Configuration());
    assertThat(env.getCheckpointConfig().isCheckpointingEnabled()).isFalse();

    env.enableCheckpointing(Duration.ofSeconds(1));
    assertThat(env.getCheckpointConfig().isCheckpointingEnabled()).isTrue();
    assertThat(env.getCheckpointConfig().getCheckpointInterval()).isEqualTo(Duration.ofSeconds(1));
    assertThat(env.getConfiguration().toMap())
        .containsEntry("execution.checkpointing.interval", "1 s");

    env.enableCheckpointing(Duration.ofMillis(250), CheckpointingMode.AT_LEAST_ONCE);
    assertThat(env.getCheckpointConfig().getCheckpointingMode())
        .isEqualTo(CheckpointingMode.AT_LEAST_ONCE);
    assertThat(env.getCheckpointConfig().getCheckpointInterval()).isEqualTo(Duration.ofMillis(250));

    env.enableCheckpointing(2000);
    assertThat(env.getCheckpointConfig().getCheckpointInterval()).isEqualTo(Duration.ofSeconds(2));

    env.getCheckpointConfig().setTolerableCheckpointFailureNumber(7);
    assertThat(env.getConfiguration().get(CheckpointingOptions.TOLERABLE_FAILURE_NUMBER))
        .isEqualTo(7);

    env.setStateBackend(new HashMapStateBackend());
    assertThat(env.getConfiguration().toMap()).containsEntry("state.backend.type", "hashmap");

    env.setRestartStrategy(RestartStrategy.fixedDelay(3, Duration.ofSeconds(1)));
    assertThat(env.getConfiguration().toMap())
        .containsEntry("restart-strategy.type", "fixed-delay")
        .containsEntry("restart-strategy.fixed-delay.attempts", "3")
        .containsEntry("restart-strategy.fixed-delay.delay", "1 s");

    assertThatThrownBy(() -> env.enableCheckpointing(Duration.ofMillis(1)))
        .hasMessageContaining("execution.checkpointing.interval");
    assertThatCode(() -> CheckpointConfig.validate(env.getConfiguration()))
        .doesNotThrowAnyException();
  }

  @Property
  void validateAcceptsExactlyTheCombinationsTheSettersAccept(
      @ForAll @LongRange(min = -5, max = 5) long minPauseMillis,
      @ForAll @IntRange(min = -1, max = 4) int maxConcurrent) {
    Configuration text =
        new Configuration()
            .setString("execution.checkpointing.min-pause", minPauseMillis + " ms")
            .setString(
                "execution.checkpointing.max-concurrent-checkpoints",
                String.valueOf(maxConcurrent));
    boolean validatePasses = passes(() -> CheckpointConfig.validate(text));
    boolean settersPass =
        passes(
            () ->
                new CheckpointConfig(new Configuration())
                    .setMaxConcurrentCheckpoints(maxConcurrent)
                    .setMinPauseBetweenCheckpoints(Duration.ofMillis(minPauseMillis)));
    boolean expected =
        minPauseMillis >= 0 && maxConcurrent >= 1 && !(minPauseMillis > 0 && maxConcurrent > 1);
    assertThat(validatePasses).isEqualTo(expected);
    assertThat(settersPass).isEqualTo(expected);
  }

  private static boolean passes(Runnable r) {
    try {
      r.run();
      return true;
    } catch (IllegalArgumentException e) {
      return false;
    }
  }
}

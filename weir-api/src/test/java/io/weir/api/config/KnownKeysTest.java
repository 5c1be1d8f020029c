package io.weir.api.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class KnownKeysTest {

  @TempDir Path dir;

  @Test
  void aMisspelledKeyFromYamlIsReportedWithTheNearestKnownKey() throws Exception {
    Path yaml = dir.resolve("weir.yaml");
    Files.writeString(yaml, "execution.checkpointing.num-retaind: 3\n");
    Configuration conf = Configuration.fromYaml(yaml);

    assertThatThrownBy(() -> KnownKeys.check(conf))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("'execution.checkpointing.num-retaind'")
        .hasMessageContaining("did you mean 'execution.checkpointing.num-retained'?");
  }

  @Test
  void aDeprecatedKeyIsKnownAndWarnedAboutNamingTheKeyToUseInstead() throws Exception {
    Path yaml = dir.resolve("flink.yaml");
    Files.writeString(
        yaml,
        "state.checkpoints.dir: file:///tmp/checkpoints\nstate.backend: rocksdb\n"
            + "execution.checkpointing.interval: 1 s\n");
    Configuration conf = Configuration.fromYaml(yaml);

    assertThatCode(() -> KnownKeys.check(conf)).doesNotThrowAnyException();
    assertThat(KnownKeys.deprecationWarnings(conf))
        .containsExactlyInAnyOrder(
            "Configuration key 'state.checkpoints.dir' is deprecated: use"
                + " 'execution.checkpointing.dir' instead",
            "Configuration key 'state.backend' is deprecated: use 'state.backend.type' instead");
  }

  @Test
  void aDeprecatedKeyBesideItsCurrentKeyIsSaidToBeIgnored() {
    Configuration conf = new Configuration();
    conf.setString("execution.checkpointing.dir", "file:///tmp/new");
    conf.setString("state.checkpoints.dir", "file:///tmp/old");
    conf.setString("state.backend.fs.checkpointdir", "file:///tmp/older");

    assertThat(KnownKeys.deprecationWarnings(conf))
        .hasSize(2)
        .allMatch(w -> w.contains("is ignored, since 'execution.checkpointing.dir' is set"));
    assertThat(conf.get(CheckpointingOptions.CHECKPOINTS_DIRECTORY)).isEqualTo("file:///tmp/new");
  }

  @Test
  void theFirstDeprecatedKeyIsReadAndTheNextOneSaidToBeIgnored() {
    Configuration conf = new Configuration();
    conf.setString("state.checkpoints.dir", "file:///tmp/old");
    conf.setString("state.backend.fs.checkpointdir", "file:///tmp/older");

    assertThat(KnownKeys.deprecationWarnings(conf))
        .containsExactly(
            "Configuration key 'state.checkpoints.dir' is deprecated: use"
                + " 'execution.checkpointing.dir' instead",
            "Configuration key 'state.backend.fs.checkpointdir' is deprecated: use"
                + " 'execution.checkpointing.dir' instead ('state.backend.fs.checkpointdir' is"
                + " ignored, since 'state.checkpoints.dir' is set)");
    assertThat(conf.get(CheckpointingOptions.CHECKPOINTS_DIRECTORY)).isEqualTo("file:///tmp/old");
  }

  /**
   * A Flink 2 configuration file as its users write it: the keys Weir does not act on are accepted,
   * and where one asks for what Weir does not do (file merging), a warning says so; local
   * recovery's keys are Weir's own now and pass without a warning.
   */
  @Test
  void aFlinkFilesKeysWeirDoesNotActOnAreAcceptedAndWarnedAboutWhereTheyAskForSomething()
      throws Exception {
    Path yaml = dir.resolve("config.yaml");
    Files.writeString(
        yaml,
        """
        execution:
          checkpointing:
            interval: 10 s
            local-backup.enabled: true
            file-merging.enabled: true
          state-recovery.from-local: true
          buffer-timeout:
            interval: 20 ms
            enabled: true
        state.backend.type: rocksdb
        state.backend.rocksdb.memory.managed: true
        state.backend.rocksdb.timer-service.factory: HEAP
        taskmanager.memory.process.size: 4g
        taskmanager.memory.managed.fraction: 0.4
        taskmanager.numberOfTaskSlots: 2
        pipeline.generic-types: true
        """);
    Configuration conf = Configuration.fromYaml(yaml);

    assertThatCode(() -> KnownKeys.check(conf)).doesNotThrowAnyException();
    assertThat(conf.get(CoreOptions.BUFFER_TIMEOUT)).isEqualTo(java.time.Duration.ofMillis(20));
    assertThat(conf.get(CheckpointingOptions.LOCAL_RECOVERY)).isTrue();
    assertThat(CheckpointingOptions.localBackup(conf)).isTrue();
    assertThat(KnownKeys.warnings(conf))
        .containsExactly(
            "Flink's 'execution.checkpointing.file-merging.enabled: true' is not acted on: Weir"
                + " writes one file per state chunk and inlines small ones in the metadata"
                + " (execution.checkpointing.data-inline-threshold). Remove it to silence this"
                + " warning.",
            "Flink's 'state.backend.rocksdb.timer-service.factory: HEAP' is not acted on: timers"
                + " of the RocksDB backend are kept in RocksDB, the earliest cached on the heap"
                + " (state.backend.rocksdb.timer-service.cache-size). Remove it to silence this"
                + " warning.");
  }

  @Test
  void flinksOlderBufferTimeoutKeyIsReadWithAWarning() {
    Configuration conf = new Configuration();
    conf.setString("execution.buffer-timeout", "7 ms");

    assertThat(conf.get(CoreOptions.BUFFER_TIMEOUT)).isEqualTo(java.time.Duration.ofMillis(7));
    assertThat(CoreOptions.bufferTimeout(conf)).isEqualTo(java.time.Duration.ofMillis(7));
    assertThat(KnownKeys.warnings(conf))
        .containsExactly(
            "Configuration key 'execution.buffer-timeout' is deprecated: use"
                + " 'execution.buffer-timeout.interval' instead");
    conf.setString("execution.buffer-timeout.enabled", "false");
    assertThat(CoreOptions.bufferTimeout(conf)).isNull();
  }

  @Test
  void noWarningWithoutDeprecatedKeys() {
    Configuration conf = new Configuration();
    conf.setString("execution.checkpointing.dir", "file:///tmp/new");

    assertThat(KnownKeys.deprecationWarnings(conf)).isEmpty();
  }

  @Test
  void systemPropertiesAreSettingsByNamespaceOrAsKnownKeys() {
    assertThat(
            KnownKeys.configurationKeys(
                java.util.List.of(
                    "execution.checkpointing.interval",
                    "java.version",
                    "weir.test.flag",
                    "rest.port",
                    "user.dir")))
        .containsExactly("execution.checkpointing.interval", "weir.test.flag", "rest.port");
  }

  @Test
  void everyUnknownKeyIsListed() {
    Configuration conf = new Configuration();
    conf.setString("state.backend.typo", "rocksdb");
    conf.setString("restart-strategy.fixed-delay.atempts", "3");

    assertThatThrownBy(() -> KnownKeys.check(conf))
        .hasMessageContaining("'state.backend.typo'")
        .hasMessageContaining("did you mean 'state.backend.type'?")
        .hasMessageContaining("did you mean 'restart-strategy.fixed-delay.attempts'?");
  }

  @Test
  void knownKeysDeprecatedKeysAndOtherNamespacesPass() {
    Configuration conf = new Configuration();
    conf.setString("execution.checkpointing.num-retained", "3");
    conf.setString("state.checkpoints.num-retained", "3"); // Flink 1.x spelling
    conf.setString("restart-strategy", "none"); // deprecated key of restart-strategy.type
    conf.setString("taskmanager.numberOfTaskSlots", "2"); // a Flink key Weir does not read
    conf.setString("kafka.bootstrap.servers", "x:1"); // left to connectors
    conf.setString("s3.endpoint", "http://127.0.0.1:9000");

    assertThatCode(() -> KnownKeys.check(conf)).doesNotThrowAnyException();
  }

  @Test
  void aKeyFarFromEveryKnownOneGetsNoSuggestion() {
    Configuration conf = new Configuration();
    conf.setString("pipeline.something-else-entirely-unrelated", "x");

    assertThatThrownBy(() -> KnownKeys.check(conf))
        .hasMessageContaining("'pipeline.something-else-entirely-unrelated'")
        .hasMessageNotContaining("did you mean");
  }

  @Test
  void theNamespacesAreWeirs() {
    assertThat(KnownKeys.inWeirNamespace("heartbeat.timeout")).isTrue();
    assertThat(KnownKeys.inWeirNamespace("high-availability.type")).isTrue();
    assertThat(KnownKeys.inWeirNamespace("rest.port")).isFalse();
  }
}

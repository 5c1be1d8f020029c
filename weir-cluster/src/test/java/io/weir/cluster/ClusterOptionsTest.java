package io.weir.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ClusterOptionsTest {

  @TempDir Path dir;

  @Test
  void theJobSettingsOfAFlinkConfigurationAreJobDefaultsAndItsClusterKeysAreNot() throws Exception {
    Path file = dir.resolve("config.yaml");
    Files.writeString(
        file,
        """
        jobmanager.rpc.port: 6123
        taskmanager.numberOfTaskSlots: 2
        security.cluster.secret: s3cret
        execution.checkpointing.interval: 10 s
        state.checkpoints.dir: file:///var/weir/checkpoints
        taskmanager.network.memory.buffers-per-channel: 4
        s3.endpoint: http://127.0.0.1:9000
        """);

    ClusterOptions options = ClusterOptions.load(file, Map.of("state.backend.type", "rocksdb"));

    assertThat(options.jobDefaults())
        .containsOnlyKeys(
            "execution.checkpointing.interval",
            "state.checkpoints.dir",
            "taskmanager.network.memory.buffers-per-channel",
            "s3.endpoint",
            "state.backend.type");
    assertThat(options.unknownKeys()).as("a job key is no unknown cluster key").isEmpty();
  }

  @Test
  void aMistypedKeyIsUnknownNamingTheNearestAndIsNoJobDefault() {
    ClusterOptions options =
        ClusterOptions.of(
            Map.of(
                "taskmanager.numberOfTaskSlot", "2",
                "rest.prot", "8081",
                "execution.checkpointing.intervall", "1 s",
                "weir.own.flag", "x"));

    assertThat(options.unknownKeys())
        .containsExactlyInAnyOrder(
            "'taskmanager.numberOfTaskSlot' (did you mean 'taskmanager.numberOfTaskSlots'?)",
            "'rest.prot' (did you mean 'rest.port'?)",
            "'execution.checkpointing.intervall' (did you mean"
                + " 'execution.checkpointing.interval'?)");
    assertThat(options.jobDefaults()).isEmpty();
  }

  @Test
  void clusterKeysAreTypedOptionsWithFlinksDefaults() {
    ClusterOptions options = ClusterOptions.of(Map.of("heartbeat.timeout", "3000"));

    assertThat(options.get(ClusterOptions.HEARTBEAT_TIMEOUT)).hasMillis(3000);
    assertThat(options.get(ClusterOptions.HEARTBEAT_INTERVAL)).hasSeconds(10);
    assertThat(options.get(ClusterOptions.REST_PORT)).isEqualTo(8081);
    assertThat(options.with(ClusterOptions.SLOTS, 4).get(ClusterOptions.SLOTS)).isEqualTo(4);
    assertThat(io.weir.api.config.KnownKeys.all())
        .as("the registry knows the cluster's keys")
        .contains("heartbeat.timeout", "rest.port", "security.cluster.secret", "web.upload.dir");
  }

  @Test
  void aValueThatCannotBeReadNamesItsKey() {
    ClusterOptions options = ClusterOptions.of(Map.of("heartbeat.timeout", "soon"));

    org.assertj.core.api.Assertions.assertThatThrownBy(
            () -> options.get(ClusterOptions.HEARTBEAT_TIMEOUT))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("'soon'")
        .hasMessageContaining("'heartbeat.timeout'");
  }

  @Test
  void aNestedYamlFileIsReadAsFlinkWritesIt() throws Exception {
    Path file = dir.resolve("nested.yaml");
    Files.writeString(
        file,
        """
        jobmanager:
          rpc:
            port: 7000
        execution:
          checkpointing:
            interval: 2 s
        """);

    ClusterOptions options = ClusterOptions.load(file, Map.of());

    assertThat(options.get(ClusterOptions.JM_PORT)).isEqualTo(7000);
    assertThat(options.jobDefaults()).containsEntry("execution.checkpointing.interval", "2 s");
  }

  @Test
  void aBrokenLineIsRefusedNamingTheFileAndLine() throws Exception {
    Path file = dir.resolve("broken.yaml");
    Files.writeString(file, "rest.port: 8081\nthis line has no colon\n");

    org.assertj.core.api.Assertions.assertThatThrownBy(() -> ClusterOptions.load(file, Map.of()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining(file + ":2");
  }
}

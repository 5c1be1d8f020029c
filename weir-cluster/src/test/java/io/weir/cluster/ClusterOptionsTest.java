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
  void aMistypedClusterKeyIsUnknown() {
    ClusterOptions options =
        ClusterOptions.of(Map.of("taskmanager.numberOfTaskSlot", "2", "rest.prot", "8081"));

    assertThat(options.unknownKeys())
        .containsExactlyInAnyOrder("taskmanager.numberOfTaskSlot", "rest.prot");
  }
}

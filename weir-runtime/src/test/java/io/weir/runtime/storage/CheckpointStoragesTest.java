package io.weir.runtime.storage;

import static io.weir.runtime.storage.TestCheckpoints.JOB_ID;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.weir.api.config.Configuration;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class CheckpointStoragesTest {

  @TempDir Path dir;

  @Test
  void withoutSettingsCheckpointsStayInTheJobManager() {
    assertThat(CheckpointStorages.create(new Configuration(), JOB_ID))
        .isInstanceOf(JobManagerCheckpointStorage.class)
        .extracting(s -> ((JobManagerCheckpointStorage) s).maxStateSizeBytes())
        .isEqualTo(5 << 20);
  }

  @Test
  void aDirectoryAloneSelectsFileSystemStorageWithTheDefaultInlineThreshold() {
    Configuration conf =
        new Configuration().setString("execution.checkpointing.dir", dir.toString());

    CheckpointStorage storage = CheckpointStorages.create(conf, JOB_ID);

    assertThat(storage).isInstanceOf(FileSystemCheckpointStorage.class);
    FileSystemCheckpointStorage fs = (FileSystemCheckpointStorage) storage;
    assertThat(fs.jobDirectory()).isEqualTo(dir.resolve(JOB_ID).toUri());
    assertThat(fs.inlineThresholdBytes()).isEqualTo(20 * 1024);
  }

  @Test
  void fileSystemStorageTakesAUriAndAnInlineThreshold() {
    Configuration conf =
        new Configuration()
            .setString("execution.checkpointing.storage", "FileSystem")
            .setString("execution.checkpointing.dir", dir.toUri().toString())
            .setString("execution.checkpointing.data-inline-threshold", "4 kb");

    FileSystemCheckpointStorage storage =
        (FileSystemCheckpointStorage) CheckpointStorages.create(conf, JOB_ID);

    assertThat(storage.inlineThresholdBytes()).isEqualTo(4096);
    assertThat(storage.jobDirectory()).isEqualTo(dir.resolve(JOB_ID).toUri());
  }

  @ParameterizedTest
  @ValueSource(strings = {"state.checkpoints.dir", "state.backend.fs.checkpointdir"})
  void flinksDeprecatedDirectoryKeysSelectFileSystemStorageInThatDirectory(String key) {
    Configuration conf = new Configuration().setString(key, dir.toUri().toString());

    CheckpointStorage storage = CheckpointStorages.create(conf, JOB_ID);

    assertThat(storage).isInstanceOf(FileSystemCheckpointStorage.class);
    assertThat(((FileSystemCheckpointStorage) storage).jobDirectory())
        .isEqualTo(dir.resolve(JOB_ID).toUri());
  }

  @Test
  void flinksDeprecatedStorageAndThresholdKeysAreRead() {
    Configuration conf =
        new Configuration()
            .setString("state.checkpoint-storage", "filesystem")
            .setString("state.checkpoints.dir", dir.toUri().toString())
            .setString("state.storage.fs.memory-threshold", "4 kb");

    FileSystemCheckpointStorage storage =
        (FileSystemCheckpointStorage) CheckpointStorages.create(conf, JOB_ID);

    assertThat(storage.inlineThresholdBytes()).isEqualTo(4096);
    assertThat(
            CheckpointStorages.create(
                new Configuration()
                    .setString("state.checkpoint-storage", "jobmanager")
                    .setString("state.checkpoints.dir", dir.toString()),
                JOB_ID))
        .isInstanceOf(JobManagerCheckpointStorage.class);
  }

  @Test
  void theCurrentKeyWinsOverADeprecatedOne() {
    Path current = dir.resolve("current");
    Configuration conf =
        new Configuration()
            .setString("execution.checkpointing.dir", current.toUri().toString())
            .setString("state.checkpoints.dir", dir.resolve("old").toUri().toString());

    FileSystemCheckpointStorage storage =
        (FileSystemCheckpointStorage) CheckpointStorages.create(conf, JOB_ID);

    assertThat(storage.jobDirectory()).isEqualTo(current.resolve(JOB_ID).toUri());
  }

  @Test
  void jobManagerStorageCanBeChosenExplicitly() {
    Configuration conf =
        new Configuration()
            .setString("execution.checkpointing.storage", "jobmanager")
            .setString("execution.checkpointing.dir", dir.toString());

    assertThat(CheckpointStorages.create(conf, JOB_ID))
        .isInstanceOf(JobManagerCheckpointStorage.class);
  }

  @Test
  void fileSystemStorageWithoutADirectoryNamesBothKeys() {
    Configuration conf =
        new Configuration().setString("execution.checkpointing.storage", "filesystem");

    assertThatThrownBy(() -> CheckpointStorages.create(conf, JOB_ID))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("execution.checkpointing.storage is 'filesystem'")
        .hasMessageContaining("execution.checkpointing.dir is not set");
  }

  @Test
  void invalidSettingsNameTheirKey() {
    assertThatThrownBy(
            () ->
                CheckpointStorages.create(
                    new Configuration().setString("execution.checkpointing.storage", "rocksdb"),
                    JOB_ID))
        .hasMessageContaining("execution.checkpointing.storage: unknown storage 'rocksdb'");
    assertThatThrownBy(
            () ->
                CheckpointStorages.create(
                    new Configuration()
                        .setString("execution.checkpointing.dir", dir.toString())
                        .setString("execution.checkpointing.data-inline-threshold", "lots"),
                    JOB_ID))
        .hasMessageContaining(
            "Invalid value 'lots' for configuration key"
                + " 'execution.checkpointing.data-inline-threshold'");
    assertThatThrownBy(
            () ->
                CheckpointStorages.create(
                    new Configuration()
                        .setString("execution.checkpointing.dir", dir.toString())
                        .setString("execution.checkpointing.data-inline-threshold", "2 mb"),
                    JOB_ID))
        .hasMessageContaining("more than the 1 mb allowed");
    assertThatThrownBy(
            () ->
                CheckpointStorages.create(
                    new Configuration().setString("execution.checkpointing.dir", "ftp://host/x"),
                    JOB_ID))
        .hasMessageContaining("'ftp'");
  }
}

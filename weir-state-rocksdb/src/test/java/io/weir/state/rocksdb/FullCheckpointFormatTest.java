package io.weir.state.rocksdb;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.weir.api.typeutils.Types;
import io.weir.runtime.checkpoint.IncrementalKeyedStateHandle;
import io.weir.runtime.checkpoint.KeyGroupsStateHandle;
import io.weir.runtime.checkpoint.KeyedStateHandle;
import io.weir.runtime.state.KeyedStateBackend;
import io.weir.runtime.storage.CheckpointStorage;
import io.weir.runtime.storage.FileSystemCheckpointStorage;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What a full RocksDB checkpoint holds, per {@code state.backend.rocksdb.checkpoint.full-format}:
 * by default (native, as in Flink 2.x) every SST file, copied into the checkpoint's own directory
 * and shared with no other checkpoint; with {@code canonical}, the key-group format.
 */
class FullCheckpointFormatTest {

  @TempDir Path dir;

  private KeyedStateHandle checkpointOneThousandKeys(String mode, CheckpointStorage storage)
      throws Exception {
    KeyedStateBackend<Long> backend =
        TestBackends.create(
            TestBackends.configuration(mode, dir.resolve("local")),
            Types.LONG.createSerializer(),
            0,
            1,
            null);
    try {
      RocksDBAgainstHeapPropertyTest.States states =
          new RocksDBAgainstHeapPropertyTest.States(backend);
      for (long k = 0; k < 1_000; k++) {
        backend.setCurrentKey(k);
        states.value.update(k);
      }
      return TestBackends.checkpoint(backend, 1, storage);
    } finally {
      backend.close();
    }
  }

  private CheckpointStorage storage() throws Exception {
    return new FileSystemCheckpointStorage(dir.resolve("checkpoints").toUri(), "2".repeat(32), 0);
  }

  @Test
  void aNativeFullCheckpointCopiesEverySstFileIntoItsOwnDirectory() throws Exception {
    KeyedStateHandle handle = checkpointOneThousandKeys("rocksdb-full", storage());

    assertThat(handle).isInstanceOf(IncrementalKeyedStateHandle.class);
    IncrementalKeyedStateHandle files = (IncrementalKeyedStateHandle) handle;
    assertThat(files.sharedFiles()).as("nothing shared with other checkpoints").isEmpty();
    assertThat(files.privateFiles())
        .extracting(IncrementalKeyedStateHandle.PrivateFile::localName)
        .anyMatch(name -> name.endsWith(".sst"));
    assertThat(files.checkpointedSize()).isEqualTo(files.stateSize());
    Path jobDir = dir.resolve("checkpoints").resolve("2".repeat(32));
    try (Stream<Path> all = Files.walk(jobDir)) {
      assertThat(all.filter(Files::isRegularFile).map(f -> jobDir.relativize(f).toString()))
          .as("every file is the checkpoint's own")
          .isNotEmpty()
          .allMatch(f -> f.startsWith("chk-1"));
    }
  }

  @Test
  void aCanonicalFullCheckpointIsInTheKeyGroupFormat() throws Exception {
    assertThat(checkpointOneThousandKeys("rocksdb-canonical", storage()))
        .isInstanceOf(KeyGroupsStateHandle.class);
  }

  @Test
  void theHeapBackendRefusesNativeFilesAndSaysHowToSwitchBackends() throws Exception {
    CheckpointStorage storage = storage();
    KeyedStateHandle handle = checkpointOneThousandKeys("rocksdb-full", storage);

    assertThatThrownBy(
            () ->
                TestBackends.create(
                    TestBackends.configuration("hashmap", null),
                    Types.LONG.createSerializer(),
                    0,
                    1,
                    TestBackends.restored(1, List.of(handle), storage)))
        .hasMessageContaining("Checkpoint 1")
        .hasMessageContaining("'op'")
        .hasMessageContaining("native RocksDB files")
        .hasMessageContaining("state.backend.rocksdb.checkpoint.full-format: canonical");
  }
}

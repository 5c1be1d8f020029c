package io.weir.state.rocksdb;

import static org.assertj.core.api.Assertions.assertThat;

import io.weir.api.state.ValueState;
import io.weir.api.state.ValueStateDescriptor;
import io.weir.api.typeutils.Types;
import io.weir.runtime.checkpoint.BarrierHandler;
import io.weir.runtime.checkpoint.CheckpointOptions;
import io.weir.runtime.checkpoint.IncrementalKeyedStateHandle;
import io.weir.runtime.state.KeyedStateBackend;
import io.weir.runtime.storage.CheckpointStorage;
import io.weir.runtime.storage.FileSystemCheckpointStorage;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A full checkpoint of an incremental RocksDB backend, one subtask driven by hand with real files:
 * it reuses no file of an earlier checkpoint and starts a new lineage; the incremental checkpoints
 * after it reuse its files once the subtask heard that it completed, and reuse nothing before (the
 * coordinator may already have dropped the earlier lineage's files).
 */
class FullCheckpointLineageTest {

  private static final ValueStateDescriptor<Long> COUNT =
      new ValueStateDescriptor<>("count", Types.LONG);
  private static final CheckpointOptions INCREMENTAL =
      CheckpointOptions.checkpoint(BarrierHandler.Alignment.ALIGNED);
  private static final CheckpointOptions FULL =
      CheckpointOptions.fullCheckpoint(BarrierHandler.Alignment.ALIGNED);

  @TempDir Path dir;

  @Test
  void aFullCheckpointReusesNothingAndTheNextOnesBuildOnItOnceItCompleted() throws Exception {
    CheckpointStorage storage =
        new FileSystemCheckpointStorage(dir.resolve("checkpoints").toUri(), "0".repeat(32), 0);
    KeyedStateBackend<Long> backend =
        TestBackends.create(
            TestBackends.configuration("rocksdb-incremental", dir.resolve("local")),
            Types.LONG.createSerializer(),
            0,
            1,
            null);
    try {
      ValueState<Long> count = backend.getState(COUNT);
      write(backend, count, 0, 1_000);
      IncrementalKeyedStateHandle first = checkpoint(backend, 1, INCREMENTAL, storage);
      backend.notifyCheckpointComplete(1);
      write(backend, count, 1_000, 2_000);
      IncrementalKeyedStateHandle second = checkpoint(backend, 2, INCREMENTAL, storage);
      backend.notifyCheckpointComplete(2);
      assertThat(second.sharedFiles()).anyMatch(IncrementalKeyedStateHandle.SharedFile::reused);
      assertThat(second.backendId()).isEqualTo(first.backendId());

      IncrementalKeyedStateHandle full = checkpoint(backend, 3, FULL, storage);
      assertThat(names(full)).as("the same database, unchanged").isEqualTo(names(second));
      assertThat(full.sharedFiles()).noneMatch(IncrementalKeyedStateHandle.SharedFile::reused);
      assertThat(handles(full)).doesNotContainAnyElementsOf(handles(second));
      assertThat(full.backendId()).isNotEqualTo(second.backendId());
      backend.notifyCheckpointComplete(3);

      IncrementalKeyedStateHandle afterFull = checkpoint(backend, 4, INCREMENTAL, storage);
      assertThat(afterFull.sharedFiles()).allMatch(IncrementalKeyedStateHandle.SharedFile::reused);
      assertThat(handles(afterFull)).isEqualTo(handles(full));
      assertThat(afterFull.backendId()).isEqualTo(full.backendId());
      backend.notifyCheckpointComplete(4);

      // A full checkpoint this subtask has not heard the end of: the next one reuses nothing.
      IncrementalKeyedStateHandle unheard = checkpoint(backend, 5, FULL, storage);
      IncrementalKeyedStateHandle racing = checkpoint(backend, 6, INCREMENTAL, storage);
      assertThat(racing.sharedFiles()).noneMatch(IncrementalKeyedStateHandle.SharedFile::reused);
      assertThat(racing.backendId())
          .isNotIn(full.backendId(), unheard.backendId(), second.backendId());
      backend.notifyCheckpointAborted(5);
      backend.notifyCheckpointComplete(6);

      IncrementalKeyedStateHandle last = checkpoint(backend, 7, INCREMENTAL, storage);
      assertThat(last.sharedFiles()).allMatch(IncrementalKeyedStateHandle.SharedFile::reused);
      assertThat(handles(last)).isEqualTo(handles(racing));
      assertThat(last.backendId()).isEqualTo(racing.backendId());
    } finally {
      backend.close();
    }
  }

  @Test
  void aFullCheckpointOfAFullBackendIsAnOrdinaryOne() throws Exception {
    CheckpointStorage storage =
        new FileSystemCheckpointStorage(dir.resolve("checkpoints").toUri(), "0".repeat(32), 0);
    KeyedStateBackend<Long> backend =
        TestBackends.create(
            TestBackends.configuration("rocksdb-full", dir.resolve("local")),
            Types.LONG.createSerializer(),
            0,
            1,
            null);
    try {
      write(backend, backend.getState(COUNT), 0, 1_000);
      IncrementalKeyedStateHandle full = checkpoint(backend, 1, FULL, storage);
      IncrementalKeyedStateHandle ordinary = checkpoint(backend, 2, INCREMENTAL, storage);

      assertThat(full.sharedFiles()).isEmpty();
      assertThat(ordinary.sharedFiles()).isEmpty();
      assertThat(full.privateFiles())
          .extracting(IncrementalKeyedStateHandle.PrivateFile::localName)
          .isEqualTo(
              ordinary.privateFiles().stream()
                  .map(IncrementalKeyedStateHandle.PrivateFile::localName)
                  .toList());
    } finally {
      backend.close();
    }
  }

  private static void write(
      KeyedStateBackend<Long> backend, ValueState<Long> count, long from, long to)
      throws Exception {
    for (long k = from; k < to; k++) {
      backend.setCurrentKey(k % 700);
      count.update(k);
    }
  }

  private static IncrementalKeyedStateHandle checkpoint(
      KeyedStateBackend<Long> backend,
      long id,
      CheckpointOptions options,
      CheckpointStorage storage)
      throws Exception {
    return (IncrementalKeyedStateHandle) backend.snapshot(id, options).persist(id, storage, "'op'");
  }

  private static List<String> names(IncrementalKeyedStateHandle h) {
    return h.sharedFiles().stream()
        .map(IncrementalKeyedStateHandle.SharedFile::localName)
        .sorted()
        .toList();
  }

  private static List<Object> handles(IncrementalKeyedStateHandle h) {
    return h.sharedFiles().stream()
        .sorted((a, b) -> a.localName().compareTo(b.localName()))
        .map(f -> (Object) f.handle())
        .toList();
  }
}

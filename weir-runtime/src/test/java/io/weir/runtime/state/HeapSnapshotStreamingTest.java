package io.weir.runtime.state;

import static org.assertj.core.api.Assertions.assertThat;

import io.weir.api.state.ValueState;
import io.weir.api.state.ValueStateDescriptor;
import io.weir.api.typeutils.Types;
import io.weir.runtime.checkpoint.KeyGroupsStateHandle;
import io.weir.runtime.state.HeapSnapshotStrategy.SerializedKeyGroups;
import io.weir.runtime.storage.FileSystemCheckpointStorage;
import io.weir.runtime.storage.StreamStateHandle;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Heap snapshots larger than one chunk stream into their file a chunk at a time: the offsets of
 * every key group still point at its entries, for the same parallelism and for another, also when
 * one key group alone is larger than a chunk; small state still goes inline.
 */
class HeapSnapshotStreamingTest {

  private static final int MAX_PARALLELISM = 16;
  private static final KeyGroupRange ALL = KeyGroupRange.of(0, MAX_PARALLELISM - 1);
  private static final ValueStateDescriptor<byte[]> VALUES =
      new ValueStateDescriptor<>("values", byte[].class);

  @TempDir Path base;

  private static byte[] value(long key) {
    byte[] v = new byte[(int) (key % 3 == 0 ? 4000 : 300)];
    Arrays.fill(v, (byte) key);
    v[0] = (byte) (key >>> 8);
    return v;
  }

  private static HeapKeyedStateBackend<Long> backend(KeyGroupRange range) {
    return new HeapKeyedStateBackend<>("op", Types.LONG.createSerializer(), MAX_PARALLELISM, range);
  }

  /** A backend of all key groups holding keys 0 to {@code keys} - 1. */
  private static HeapKeyedStateBackend<Long> filled(int keys) throws Exception {
    HeapKeyedStateBackend<Long> backend = backend(ALL);
    ValueState<byte[]> state = backend.getState(VALUES);
    for (long k = 0; k < keys; k++) {
      backend.setCurrentKey(k);
      state.update(value(k));
    }
    return backend;
  }

  private static void assertHolds(HeapKeyedStateBackend<Long> backend, int keys) throws Exception {
    ValueState<byte[]> state = backend.getState(VALUES);
    int seen = 0;
    for (long k = 0; k < keys; k++) {
      if (backend
          .getKeyGroupRange()
          .contains(KeyGroupRangeAssignment.assignToKeyGroup(k, MAX_PARALLELISM))) {
        backend.setCurrentKey(k);
        assertThat(state.value()).as("key %s", k).isEqualTo(value(k));
        seen++;
      }
    }
    assertThat(backend.numberOfEntries()).isEqualTo(seen);
  }

  @Test
  void stateOfManyChunksRestoresAtTheSameAndAnotherParallelism() throws Exception {
    // About 1.5 MB per key group on average, 24 MB in all: every key group outgrows a chunk.
    int keys = 16_000;
    FileSystemCheckpointStorage storage =
        new FileSystemCheckpointStorage(base.toUri(), "0123456789abcdef0123456789abcdef", 1024);
    KeyGroupsStateHandle handle =
        (KeyGroupsStateHandle) filled(keys).snapshot(1).persist(1, storage, "'op'");
    assertThat(handle.data()).isInstanceOf(StreamStateHandle.File.class);
    assertThat(((StreamStateHandle.File) handle.data()).size())
        .isGreaterThan(10L * HeapSnapshotStrategy.CHUNK_BYTES);
    SerializedKeyGroups read =
        new SerializedKeyGroups(handle.range(), handle.offsets(), storage.readState(handle.data()));

    HeapKeyedStateBackend<Long> same = backend(ALL);
    HeapSnapshotStrategy.restore(same, List.of(read), getClass().getClassLoader());
    assertHolds(same, keys);
    for (int subtask = 0; subtask < 3; subtask++) {
      HeapKeyedStateBackend<Long> rescaled =
          backend(
              KeyGroupRangeAssignment.computeKeyGroupRangeForOperatorIndex(
                  MAX_PARALLELISM, 3, subtask));
      HeapSnapshotStrategy.restore(rescaled, List.of(read), getClass().getClassLoader());
      assertHolds(rescaled, keys);
    }
  }

  @Test
  void stateWithinTheInlineThresholdStaysInline() throws Exception {
    FileSystemCheckpointStorage storage =
        new FileSystemCheckpointStorage(
            base.toUri(), "0123456789abcdef0123456789abcdef", 20 * 1024);
    KeyGroupsStateHandle handle =
        (KeyGroupsStateHandle) filled(10).snapshot(1).persist(1, storage, "'op'");
    assertThat(handle.data()).isInstanceOf(StreamStateHandle.Inline.class);
    HeapKeyedStateBackend<Long> restored = backend(ALL);
    HeapSnapshotStrategy.restore(
        restored,
        List.of(
            new SerializedKeyGroups(
                handle.range(), handle.offsets(), storage.readState(handle.data()))),
        getClass().getClassLoader());
    assertHolds(restored, 10);
  }
}

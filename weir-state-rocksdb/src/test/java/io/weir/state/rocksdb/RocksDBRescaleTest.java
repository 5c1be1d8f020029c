package io.weir.state.rocksdb;

import static org.assertj.core.api.Assertions.assertThat;

import io.weir.api.typeutils.Types;
import io.weir.runtime.checkpoint.KeyedStateHandle;
import io.weir.runtime.state.KeyGroupRange;
import io.weir.runtime.state.KeyGroupRangeAssignment;
import io.weir.runtime.state.KeyedStateBackend;
import io.weir.runtime.state.TimerQueue;
import io.weir.runtime.storage.CheckpointStorage;
import io.weir.runtime.storage.FileSystemCheckpointStorage;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Restoring at another parallelism keeps every key's state exactly: each new subtask gets all the
 * keys of its key groups (value, list, map and timers) and nothing else, whether the old state
 * comes as native RocksDB files (incremental or native full: the best-overlapping database is
 * opened and clipped with range deletes, the others' owned ranges copied in) or in the canonical
 * format (canonical full checkpoints, and the heap backend's).
 */
class RocksDBRescaleTest {

  static final int KEYS = 2_000;

  @TempDir Path dir;

  @ParameterizedTest(name = "{0} -> {1}: {2} -> {3}")
  @CsvSource({
    "rocksdb-incremental, rocksdb-incremental, 2, 3",
    "rocksdb-incremental, rocksdb-incremental, 3, 2",
    "rocksdb-full, rocksdb-full, 2, 3",
    "rocksdb-full, rocksdb-full, 3, 2",
    "rocksdb-canonical, rocksdb-canonical, 2, 3",
    "rocksdb-canonical, rocksdb-canonical, 3, 2",
    "rocksdb-incremental, rocksdb-incremental, 2, 2",
    "hashmap, hashmap, 2, 3",
    // Switching backends through the canonical format, both ways.
    "rocksdb-canonical, hashmap, 2, 3",
    "hashmap, rocksdb-full, 3, 2"
  })
  void everyKeyKeepsItsStateExactly(String mode, String restoreMode, int from, int to)
      throws Exception {
    CheckpointStorage storage =
        new FileSystemCheckpointStorage(dir.resolve("checkpoints").toUri(), "1".repeat(32), 0);
    List<KeyedStateHandle> handles = new ArrayList<>();
    for (int s = 0; s < from; s++) {
      KeyedStateBackend<Long> backend = open(mode, s, from, null, storage);
      RocksDBAgainstHeapPropertyTest.States states =
          new RocksDBAgainstHeapPropertyTest.States(backend);
      for (long k = 0; k < KEYS; k++) {
        if (owner(k, from) == s) {
          backend.setCurrentKey(k);
          states.value.update(k * 10);
          states.list.add("a" + k);
          states.list.add("b" + k);
          states.map.put((int) (k % 7), "m" + k);
          states.timers.add(k % 50, k);
        }
      }
      handles.add(TestBackends.checkpoint(backend, 1, storage));
      backend.close();
    }

    for (int s = 0; s < to; s++) {
      KeyedStateBackend<Long> backend =
          open(restoreMode, s, to, TestBackends.restored(1, handles, storage), storage);
      try {
        RocksDBAgainstHeapPropertyTest.States states =
            new RocksDBAgainstHeapPropertyTest.States(backend);
        int owned = 0;
        for (long k = 0; k < KEYS; k++) {
          if (owner(k, to) != s) {
            continue;
          }
          owned++;
          backend.setCurrentKey(k);
          assertThat(states.value.value()).isEqualTo(k * 10);
          List<String> list = new ArrayList<>();
          states.list.get().forEach(list::add);
          assertThat(list).containsExactly("a" + k, "b" + k);
          Map<Integer, String> map = new HashMap<>();
          states.map.entries().forEach(e -> map.put(e.getKey(), e.getValue()));
          assertThat(map).isEqualTo(Map.of((int) (k % 7), "m" + k));
        }
        KeyGroupRange range = backend.getKeyGroupRange();
        int timers = 0;
        TimerQueue.Timer<Long> t;
        while ((t = states.timers.poll()) != null) {
          assertThat(range.contains(keyGroup(t.key())))
              .as("timer of key %s in subtask %s", t.key(), s)
              .isTrue();
          assertThat(t.timestamp()).isEqualTo(t.key() % 50);
          timers++;
        }
        assertThat(timers).as("timers of subtask %s", s).isEqualTo(owned);
      } finally {
        backend.close();
      }
    }
  }

  private KeyedStateBackend<Long> open(
      String mode,
      int subtask,
      int parallelism,
      io.weir.runtime.checkpoint.RestoredOperatorState restored,
      CheckpointStorage storage)
      throws Exception {
    return TestBackends.create(
        TestBackends.configuration(mode, dir.resolve("local")),
        Types.LONG.createSerializer(),
        subtask,
        parallelism,
        restored);
  }

  private static int keyGroup(long key) {
    return KeyGroupRangeAssignment.assignToKeyGroup(key, TestBackends.MAX_PARALLELISM);
  }

  private static int owner(long key, int parallelism) {
    return KeyGroupRangeAssignment.computeOperatorIndexForKeyGroup(
        TestBackends.MAX_PARALLELISM, parallelism, keyGroup(key));
  }
}

package io.weir.state.rocksdb;

import static org.assertj.core.api.Assertions.assertThat;

import io.weir.api.functions.TaskInfo;
import io.weir.api.state.ListState;
import io.weir.api.state.ListStateDescriptor;
import io.weir.api.state.MapState;
import io.weir.api.state.MapStateDescriptor;
import io.weir.api.state.ValueState;
import io.weir.api.state.ValueStateDescriptor;
import io.weir.api.typeutils.TypeInformation;
import io.weir.api.typeutils.Types;
import io.weir.runtime.checkpoint.KeyedStateHandle;
import io.weir.runtime.checkpoint.RestoredOperatorState;
import io.weir.runtime.state.ClassVersions;
import io.weir.runtime.state.KeyGroupRangeAssignment;
import io.weir.runtime.state.KeyedStateBackend;
import io.weir.runtime.state.KeyedStateBackendFactory;
import io.weir.runtime.state.KeyedStateBackends;
import io.weir.runtime.storage.CheckpointStorage;
import io.weir.runtime.storage.FileSystemCheckpointStorage;
import java.lang.reflect.Constructor;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Migration of every kind of keyed state whose record type gained a component, in each way the
 * backends restore: value and list state of a record, and map state whose map keys and values are
 * records (in RocksDB the map keys are part of the database keys, so they are rewritten too).
 */
class RocksDBMigrationTest {

  static final int KEYS = 300;

  static final String V1 = "package evo; public record Item(String name, long n) {}";
  static final String V2 = "package evo; public record Item(String name, long n, Long extra) {}";

  @TempDir Path dir;

  @ParameterizedTest
  @ValueSource(strings = {"rocksdb-incremental", "rocksdb-full", "rocksdb-canonical", "hashmap"})
  void valueListAndMapStateMigrate(String mode) throws Exception {
    CheckpointStorage storage =
        new FileSystemCheckpointStorage(dir.resolve("checkpoints").toUri(), "2".repeat(32), 0);
    ClassLoader v1 = ClassVersions.compile(dir.resolve("v1"), "evo.Item", V1);
    ClassLoader v2 = ClassVersions.compile(dir.resolve("v2"), "evo.Item", V2);

    KeyedStateHandle handle;
    try (KeyedStateBackend<Long> backend = open(mode, v1, null)) {
      States states = new States(backend, v1);
      for (long k = 0; k < KEYS; k++) {
        backend.setCurrentKey(k);
        states.value.update(item(v1, "v" + k, k));
        states.list.add(item(v1, "a" + k, 1));
        states.list.add(item(v1, "b" + k, 2));
        states.map.put(item(v1, "key" + k, k), item(v1, "m" + k, -k));
      }
      handle = TestBackends.checkpoint(backend, 1, storage);
    }

    try (KeyedStateBackend<Long> backend =
        open(mode, v2, TestBackends.restored(1, List.of(handle), storage))) {
      States states = new States(backend, v2);
      for (long k = 0; k < KEYS; k++) {
        backend.setCurrentKey(k);
        assertThat(states.value.value()).isEqualTo(item(v2, "v" + k, k, null));
        List<Object> list = new ArrayList<>();
        states.list.get().forEach(list::add);
        assertThat(list).containsExactly(item(v2, "a" + k, 1, null), item(v2, "b" + k, 2, null));
        assertThat(states.map.get(item(v2, "key" + k, k, null)))
            .as("a map value found by its migrated map key")
            .isEqualTo(item(v2, "m" + k, -k, null));
        Map<Object, Object> entries = new HashMap<>();
        states.map.entries().forEach(e -> entries.put(e.getKey(), e.getValue()));
        assertThat(entries).hasSize(1);
        // Written with the new serializer from now on, beside the migrated entries.
        states.list.add(item(v2, "c" + k, 3, 7L));
      }
      backend.setCurrentKey(5L);
      List<Object> list = new ArrayList<>();
      states.list.get().forEach(list::add);
      assertThat(list).last().isEqualTo(item(v2, "c5", 3, 7L));
    }
  }

  /** The three states, typed with the loader's version of evo.Item. */
  static final class States {
    final ValueState<Object> value;
    final ListState<Object> list;
    final MapState<Object, Object> map;

    @SuppressWarnings({"unchecked", "rawtypes"})
    States(KeyedStateBackend<Long> backend, ClassLoader loader) throws Exception {
      Class<? extends Record> c = (Class<? extends Record>) Class.forName("evo.Item", true, loader);
      TypeInformation<Object> type = (TypeInformation) Types.RECORD(c);
      value = backend.getState(new ValueStateDescriptor<>("value", type));
      list = backend.getListState(new ListStateDescriptor<>("list", type));
      map = backend.getMapState(new MapStateDescriptor<>("map", type, type));
    }
  }

  static Object item(ClassLoader loader, Object... args) throws Exception {
    Constructor<?> constructor =
        Class.forName("evo.Item", true, loader).getDeclaredConstructors()[0];
    return constructor.newInstance(args);
  }

  private KeyedStateBackend<Long> open(String mode, ClassLoader loader, RestoredOperatorState r)
      throws Exception {
    return KeyedStateBackends.create(
        new KeyedStateBackendFactory.Context<>(
            "op",
            "op-id",
            new TaskInfo("op", 0, 1, TestBackends.MAX_PARALLELISM, 0),
            Types.LONG.createSerializer(),
            KeyGroupRangeAssignment.computeKeyGroupRangeForOperatorIndex(
                TestBackends.MAX_PARALLELISM, 1, 0),
            TestBackends.configuration(mode, dir.resolve("local")),
            loader,
            r,
            new Object()));
  }
}

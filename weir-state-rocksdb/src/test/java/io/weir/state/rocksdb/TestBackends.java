package io.weir.state.rocksdb;

import io.weir.api.StreamEnvironment;
import io.weir.api.config.CheckpointingOptions;
import io.weir.api.config.Configuration;
import io.weir.api.functions.TaskInfo;
import io.weir.api.typeutils.TypeSerializer;
import io.weir.runtime.checkpoint.IncrementalKeyedStateHandle;
import io.weir.runtime.checkpoint.KeyGroupsStateHandle;
import io.weir.runtime.checkpoint.KeyedStateHandle;
import io.weir.runtime.checkpoint.RestoredOperatorState;
import io.weir.runtime.state.HeapSnapshotStrategy.SerializedKeyGroups;
import io.weir.runtime.state.KeyGroupRangeAssignment;
import io.weir.runtime.state.KeyedStateBackend;
import io.weir.runtime.state.KeyedStateBackendFactory;
import io.weir.runtime.state.KeyedStateBackends;
import io.weir.runtime.state.KeyedStateSnapshot;
import io.weir.runtime.state.TaskLocalStateStore;
import io.weir.runtime.storage.CheckpointStorage;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Builds, snapshots and restores keyed backends the way the runtime does, for tests; and the jobs
 * of the tests that switch backends.
 */
final class TestBackends {

  static final int MAX_PARALLELISM = 128;

  /** The test-wide memory scope; real jobs use their job graph. */
  private static final Object JOB = new Object();

  private TestBackends() {}

  /**
   * Backend type and checkpoint mode: hashmap, rocksdb-incremental, rocksdb-full (native full
   * checkpoints, the default) or rocksdb-canonical (full checkpoints in the key-group format).
   */
  static Configuration configuration(String mode, Path localDir) {
    Configuration conf = new Configuration();
    conf.set(CheckpointingOptions.STATE_BACKEND, mode.startsWith("rocksdb") ? "rocksdb" : mode);
    conf.set(CheckpointingOptions.INCREMENTAL_CHECKPOINTS, mode.equals("rocksdb-incremental"));
    if (mode.equals("rocksdb-canonical")) {
      conf.set(RocksDBOptions.FULL_CHECKPOINT_FORMAT, "canonical");
    }
    if (localDir != null) {
      conf.set(RocksDBOptions.LOCAL_DIRECTORIES, localDir.toString());
    }
    return conf;
  }

  /**
   * A job before or after a switch of backends through a savepoint: parallelism 2 on {@code
   * backend} (hashmap, rocksdb-incremental or rocksdb-full), checkpoints every 50 ms into {@code
   * dir}/checkpoints, savepoints into {@code dir}/savepoints, RocksDB working in {@code dir}/{@code
   * localDir}.
   */
  static StreamEnvironment environment(String backend, Path dir, String localDir) {
    StreamEnvironment env = StreamEnvironment.create();
    env.setParallelism(2);
    env.getConfiguration()
        .setString("state.backend.type", backend.startsWith("rocksdb") ? "rocksdb" : backend);
    env.getConfiguration()
        .set(CheckpointingOptions.INCREMENTAL_CHECKPOINTS, backend.equals("rocksdb-incremental"));
    env.getConfiguration()
        .setString("state.backend.rocksdb.localdir", dir.resolve(localDir).toString());
    env.enableCheckpointing(Duration.ofMillis(50));
    env.getCheckpointConfig().setCheckpointStorage(dir.resolve("checkpoints").toUri().toString());
    env.getConfiguration()
        .set(CheckpointingOptions.SAVEPOINT_DIRECTORY, dir.resolve("savepoints").toString());
    return env;
  }

  static <K> KeyedStateBackend<K> create(
      Configuration conf,
      TypeSerializer<K> keys,
      int subtask,
      int parallelism,
      RestoredOperatorState restored)
      throws Exception {
    return create(conf, keys, subtask, parallelism, restored, null);
  }

  /** As the runtime builds it, with {@code localState} the subtask's local copies of snapshots. */
  static <K> KeyedStateBackend<K> create(
      Configuration conf,
      TypeSerializer<K> keys,
      int subtask,
      int parallelism,
      RestoredOperatorState restored,
      TaskLocalStateStore localState)
      throws Exception {
    return KeyedStateBackends.create(
        new KeyedStateBackendFactory.Context<>(
            "op",
            "op-id",
            new TaskInfo("op", subtask, parallelism, MAX_PARALLELISM, 0),
            keys,
            KeyGroupRangeAssignment.computeKeyGroupRangeForOperatorIndex(
                MAX_PARALLELISM, parallelism, subtask),
            conf,
            TestBackends.class.getClassLoader(),
            restored,
            JOB,
            localState));
  }

  /** Takes and persists a snapshot; null when the backend has no state. */
  static KeyedStateHandle checkpoint(
      KeyedStateBackend<?> backend, long id, CheckpointStorage storage) throws Exception {
    KeyedStateSnapshot snapshot = backend.snapshot(id);
    return snapshot == null ? null : snapshot.persist(id, storage, "'op'");
  }

  /** What a subtask restores from the given old subtasks' handles. */
  static RestoredOperatorState restored(
      long id, List<KeyedStateHandle> handles, CheckpointStorage storage) throws IOException {
    List<SerializedKeyGroups> canonical = new ArrayList<>();
    List<RestoredOperatorState.IncrementalRestore> incremental = new ArrayList<>();
    for (KeyedStateHandle h : handles) {
      if (h instanceof KeyGroupsStateHandle k) {
        canonical.add(new SerializedKeyGroups(k.range(), k.offsets(), storage.readState(k.data())));
      } else if (h instanceof IncrementalKeyedStateHandle i) {
        incremental.add(new RestoredOperatorState.IncrementalRestore(i, storage, true));
      }
    }
    return new RestoredOperatorState(id, canonical, incremental, Map.of());
  }
}

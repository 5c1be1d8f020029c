package io.weir.runtime.state;

import io.weir.api.config.CheckpointingOptions;
import io.weir.runtime.checkpoint.IncrementalKeyedStateHandle;
import io.weir.runtime.checkpoint.KeyedStateHandle;
import io.weir.runtime.recovery.NonRecoverableException;
import java.util.ArrayList;
import java.util.List;
import java.util.ServiceLoader;

/** Finds the backend factory for {@code state.backend.type} and builds backends with it. */
public final class KeyedStateBackends {

  private KeyedStateBackends() {}

  /** Builds (and restores) the keyed state backend of {@code context}'s operator subtask. */
  public static <K> KeyedStateBackend<K> create(KeyedStateBackendFactory.Context<K> context)
      throws Exception {
    return factory(context.configuration().get(CheckpointingOptions.STATE_BACKEND)).create(context);
  }

  /**
   * The factory for {@code type}.
   *
   * @throws IllegalArgumentException naming the key when no factory builds {@code type}
   */
  public static KeyedStateBackendFactory factory(String type) {
    if (CheckpointingOptions.BACKEND_HASHMAP.equalsIgnoreCase(type)) {
      return HEAP;
    }
    List<String> known = new ArrayList<>(List.of(CheckpointingOptions.BACKEND_HASHMAP));
    for (KeyedStateBackendFactory f : ServiceLoader.load(KeyedStateBackendFactory.class)) {
      if (f.type().equalsIgnoreCase(type)) {
        return f;
      }
      known.add(f.type());
    }
    String hint =
        CheckpointingOptions.BACKEND_ROCKSDB.equalsIgnoreCase(type)
            ? " The RocksDB backend is in the module io.weir:weir-state-rocksdb: add it to the"
                + " job's dependencies."
            : "";
    throw new IllegalArgumentException(
        "Unknown state backend '"
            + type
            + "' in "
            + CheckpointingOptions.STATE_BACKEND.key()
            + "; available: "
            + String.join(", ", known)
            + "."
            + hint);
  }

  /** The built-in heap backend. */
  private static final KeyedStateBackendFactory HEAP =
      new KeyedStateBackendFactory() {
        @Override
        public String type() {
          return CheckpointingOptions.BACKEND_HASHMAP;
        }

        @Override
        public <K> KeyedStateBackend<K> create(Context<K> context) throws Exception {
          HeapKeyedStateBackend<K> backend =
              new HeapKeyedStateBackend<>(
                  context.operatorName(),
                  context.keySerializer(),
                  context.maxParallelism(),
                  context.keyGroupRange());
          if (context.restored() != null) {
            if (!context.restored().incremental().isEmpty()) {
              throw new NonRecoverableException(
                  nativeFilesProblem(context.operatorName(), context.restored().checkpointId()));
            }
            HeapSnapshotStrategy.restore(
                backend, context.restored().keyed(), context.userClassLoader());
          }
          return backend;
        }

        @Override
        public String restoreProblem(
            KeyedStateHandle handle, String operatorName, long checkpointId) {
          return handle instanceof IncrementalKeyedStateHandle
              ? nativeFilesProblem(operatorName, checkpointId)
              : null;
        }
      };

  private static String nativeFilesProblem(String operatorName, long checkpointId) {
    return "Checkpoint "
        + checkpointId
        + " holds the keyed state of '"
        + operatorName
        + "' as native RocksDB files (an incremental or native full checkpoint), which the heap"
        + " backend cannot read. Restore it with state.backend.type: rocksdb. To switch backends,"
        + " restore from a savepoint or from a full checkpoint taken with"
        + " state.backend.rocksdb.checkpoint.full-format: canonical.";
  }
}

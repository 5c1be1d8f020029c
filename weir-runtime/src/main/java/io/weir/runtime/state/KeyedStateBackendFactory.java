package io.weir.runtime.state;

import io.weir.api.config.Configuration;
import io.weir.api.functions.TaskInfo;
import io.weir.api.typeutils.TypeSerializer;
import io.weir.runtime.checkpoint.KeyedStateHandle;
import io.weir.runtime.checkpoint.RestoredOperatorState;
import java.util.Map;
import java.util.function.LongSupplier;

/**
 * Builds the keyed state backend of one operator subtask for a {@code state.backend.type}. The heap
 * backend is built in; others (RocksDB) are found with {@link java.util.ServiceLoader}, so that the
 * runtime does not depend on them.
 */
public interface KeyedStateBackendFactory {

  /** The {@code state.backend.type} this factory builds, e.g. {@code rocksdb}. */
  String type();

  /** A backend for {@code context}, restored from {@code context.restored()} if present. */
  <K> KeyedStateBackend<K> create(Context<K> context) throws Exception;

  /**
   * Checks, before any task of a job is deployed, the settings this backend reads: every key
   * parses, directories can be written. Throws naming the key, the value and what to change; the
   * default checks nothing.
   */
  default void validate(Configuration configuration) {}

  /**
   * Why this backend cannot restore {@code handle} (the keyed state of {@code operatorName} in
   * checkpoint {@code checkpointId}), or null when it can. Asked before any task is deployed, so
   * that a checkpoint of the wrong kind is found once, not by every task of every attempt.
   */
  default String restoreProblem(KeyedStateHandle handle, String operatorName, long checkpointId) {
    return null;
  }

  /**
   * Gauges of the native memory the backends of this factory hold in this process now, across every
   * job and slot, by metric name (RocksDB: its block caches, which its memtables and index and
   * filter blocks are charged to); the process's metrics report them. Read from any thread; the
   * default has none.
   */
  default Map<String, LongSupplier> nativeMemoryGauges() {
    return Map.of();
  }

  /**
   * What a backend is built for.
   *
   * @param operatorName the operator, for errors
   * @param operatorId the operator's stable id
   * @param taskInfo the subtask
   * @param keySerializer serializer of the keys
   * @param keyGroupRange the key groups the subtask owns
   * @param configuration the job's configuration
   * @param userClassLoader loads user classes (serializers of restored state)
   * @param restored the state to start from, or null
   * @param jobScope one object per running job: backends of the same job and subtask index (the
   *     same slot) may share memory through it
   * @param localState where the subtask keeps local copies of its snapshots for task-local
   *     recovery, or null when it keeps none
   */
  record Context<K>(
      String operatorName,
      String operatorId,
      TaskInfo taskInfo,
      TypeSerializer<K> keySerializer,
      KeyGroupRange keyGroupRange,
      Configuration configuration,
      ClassLoader userClassLoader,
      RestoredOperatorState restored,
      Object jobScope,
      TaskLocalStateStore localState) {

    /** A context without local copies of snapshots. */
    public Context(
        String operatorName,
        String operatorId,
        TaskInfo taskInfo,
        TypeSerializer<K> keySerializer,
        KeyGroupRange keyGroupRange,
        Configuration configuration,
        ClassLoader userClassLoader,
        RestoredOperatorState restored,
        Object jobScope) {
      this(
          operatorName,
          operatorId,
          taskInfo,
          keySerializer,
          keyGroupRange,
          configuration,
          userClassLoader,
          restored,
          jobScope,
          null);
    }

    public int maxParallelism() {
      return taskInfo.maxNumberOfParallelSubtasks();
    }
  }
}

package io.weir.runtime.state;

import io.weir.api.state.KeyedStateStore;
import io.weir.api.typeutils.TypeSerializer;
import java.io.Closeable;

/**
 * The keyed state of one operator subtask, whatever holds it: objects on the heap ({@link
 * HeapKeyedStateBackend}) or serialized bytes in an embedded RocksDB ({@code weir-state-rocksdb}).
 * Every state access is scoped to the key set by {@link #setCurrentKey}. Task thread only, except
 * where a method says otherwise.
 *
 * @param <K> the key type
 */
public interface KeyedStateBackend<K> extends KeyedStateStore, Closeable {

  /** The operator this state belongs to, for errors. */
  String getOperatorName();

  /** The key groups this subtask owns. */
  KeyGroupRange getKeyGroupRange();

  int getMaxParallelism();

  TypeSerializer<K> getKeySerializer();

  /** Scopes every following state access to {@code key}. */
  void setCurrentKey(K key);

  /** The key set last, or null before the first. */
  K getCurrentKey();

  /**
   * The timers named {@code name} (e.g. processing-time timers of the operator), kept in this
   * backend so that they are checkpointed with the rest of the keyed state.
   */
  TimerQueue<K> getTimerQueue(String name);

  /**
   * The synchronous part of a checkpoint: a consistent, frozen view of the state that {@link
   * KeyedStateSnapshot#persist} writes later on another thread. Task thread, between records.
   */
  KeyedStateSnapshot snapshot(long checkpointId) throws Exception;

  /**
   * As {@link #snapshot(long)}, for a checkpoint or savepoint as {@code options} say. A savepoint
   * must be self-contained and readable by every backend: a backend whose checkpoints are
   * incremental or native writes it in full, in the canonical key-group format.
   */
  default KeyedStateSnapshot snapshot(
      long checkpointId, io.weir.runtime.checkpoint.CheckpointOptions options) throws Exception {
    return snapshot(checkpointId);
  }

  /** Checkpoint {@code checkpointId} completed everywhere; incremental backends move their base. */
  default void notifyCheckpointComplete(long checkpointId) throws Exception {}

  /** Checkpoint {@code checkpointId} will not complete. */
  default void notifyCheckpointAborted(long checkpointId) throws Exception {}

  /** Releases memory and deletes local files; the backend is unusable afterwards. Idempotent. */
  @Override
  default void close() {}
}

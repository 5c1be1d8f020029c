package io.weir.runtime.state;

import io.weir.runtime.checkpoint.KeyedStateHandle;
import io.weir.runtime.storage.CheckpointStorage;
import java.io.IOException;

/**
 * The frozen keyed state of one operator subtask for one checkpoint, taken on the task thread and
 * written on a snapshot thread.
 */
public interface KeyedStateSnapshot {

  /**
   * The asynchronous part: writes the state to {@code storage}. Any thread; called at most once,
   * and releases the snapshot whether it succeeds or not.
   *
   * @param description names the operator in errors and file descriptions
   */
  KeyedStateHandle persist(long checkpointId, CheckpointStorage storage, String description)
      throws IOException;

  /** Gives up the snapshot without writing it; idempotent. */
  void release();
}

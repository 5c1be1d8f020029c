package io.weir.runtime.state;

import io.weir.runtime.checkpoint.KeyedStateHandle;
import io.weir.runtime.checkpoint.StateSchema;
import io.weir.runtime.storage.CheckpointStateWriter;
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
  KeyedStateHandle persist(long checkpointId, CheckpointStateWriter storage, String description)
      throws IOException;

  /**
   * The serializer snapshots of the key and of every state in this snapshot, for the checkpoint's
   * metadata; null when the backend does not record them. Any thread, before {@link #persist}.
   */
  default StateSchema schema() {
    return null;
  }

  /** Gives up the snapshot without writing it; idempotent. */
  void release();
}

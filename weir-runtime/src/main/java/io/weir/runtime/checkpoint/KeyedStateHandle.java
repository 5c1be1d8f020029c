package io.weir.runtime.checkpoint;

import io.weir.runtime.state.KeyGroupRange;

/**
 * The keyed state of one operator subtask in a checkpoint: a stream in the canonical key-group
 * format ({@link KeyGroupsStateHandle}: heap snapshots and full RocksDB snapshots) or the files of
 * a native RocksDB checkpoint ({@link IncrementalKeyedStateHandle}).
 */
public sealed interface KeyedStateHandle permits KeyGroupsStateHandle, IncrementalKeyedStateHandle {

  /** The key groups the state covers. */
  KeyGroupRange range();

  /** Bytes of state this handle refers to, files shared with earlier checkpoints included. */
  long stateSize();

  /** Bytes written for this checkpoint alone. */
  long checkpointedSize();
}

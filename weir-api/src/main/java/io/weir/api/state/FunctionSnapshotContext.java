package io.weir.api.state;

/** Passed to {@code CheckpointedFunction.snapshotState}. */
public interface FunctionSnapshotContext {

  long getCheckpointId();

  /** When the coordinator triggered the checkpoint, in epoch milliseconds. */
  long getCheckpointTimestamp();
}

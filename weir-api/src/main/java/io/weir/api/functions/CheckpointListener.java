package io.weir.api.functions;

/** Told, on the task thread, when a checkpoint completed or was aborted. */
public interface CheckpointListener {

  /**
   * Checkpoint {@code checkpointId} completed on every task. Later checkpoints subsume earlier
   * ones: a notification may be skipped, so act on everything up to this id.
   */
  void notifyCheckpointComplete(long checkpointId) throws Exception;

  /** Checkpoint {@code checkpointId} will never complete. */
  default void notifyCheckpointAborted(long checkpointId) throws Exception {}
}

package io.weir.api;

/**
 * What happens to a job's completed checkpoints when the job ends, as in Flink's {@code
 * execution.checkpointing.externalized-checkpoint-retention}.
 */
public enum ExternalizedCheckpointRetention {
  /** Checkpoints are kept when the job fails and deleted when it is cancelled. */
  DELETE_ON_CANCELLATION,
  /** Checkpoints are kept when the job fails or is cancelled, so it can resume from them later. */
  RETAIN_ON_CANCELLATION,
  /** Checkpoints serve only recovery inside the running job and are deleted when it ends. */
  NO_EXTERNALIZED_CHECKPOINTS
}

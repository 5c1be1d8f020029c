package io.weir.api;

/**
 * Who owns the files of the savepoint or retained checkpoint a job is started from ({@code
 * execution.state-recovery.claim-mode}), as in Flink.
 */
public enum RecoveryClaimMode {
  /**
   * The job never deletes what it restored, and its checkpoints never refer to the restored files:
   * its first checkpoint is a full one. The restored checkpoint can be used again and again.
   */
  NO_CLAIM,
  /**
   * The job owns the restored checkpoint and deletes it, as one of its own, once newer checkpoints
   * subsume it. Do not start another job from it. A savepoint is never deleted.
   */
  CLAIM
}

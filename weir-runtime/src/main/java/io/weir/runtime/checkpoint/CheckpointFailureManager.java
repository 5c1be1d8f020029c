package io.weir.runtime.checkpoint;

import io.weir.runtime.checkpoint.CheckpointFinalizer.AbortReason;
import java.util.Optional;

/**
 * Counts the checkpoints that failed, in a row and in total, and says when the job must fail: when
 * more than {@code execution.checkpointing.tolerable-failed-checkpoints} failed in a row (Flink's
 * {@code CheckpointFailureManager}). Only some aborts are failures: see {@link #countsAsFailure}.
 * Holds no threads and reads no clock; not thread-safe: the {@link CheckpointFinalizer} calls it
 * under the coordinator's lock.
 */
final class CheckpointFailureManager {

  private final int tolerableFailures;
  private int consecutiveFailures;
  private int failuresTotal;

  /**
   * @param tolerableFailures consecutive failures tolerated; one more fails the job
   */
  CheckpointFailureManager(int tolerableFailures) {
    this.tolerableFailures = tolerableFailures;
  }

  /**
   * True when an abort for {@code reason} is a failure. A subsumed checkpoint or one of a stopping
   * job says nothing about the job's health; a savepoint is asked for by a user, and its failure is
   * reported to that user rather than held against the job.
   */
  static boolean countsAsFailure(AbortReason reason, boolean savepoint) {
    if (savepoint) {
      return false;
    }
    return switch (reason) {
      case TIMEOUT, DECLINED, STORAGE_FAILURE -> true;
      // Not recorded: the checkpoint may well be in the store, and a store that cannot be reached
      // for a while (ZooKeeper restarting) must not fail a job that processes on.
      case SUBSUMED, JOB_STOPPED, TASK_FINISHED, NOT_RECORDED -> false;
    };
  }

  /**
   * Counts the failure of checkpoint {@code checkpointId}, which {@link #countsAsFailure} said is
   * one.
   *
   * @return the exception to fail the job with, when this failure is one too many; empty otherwise
   */
  Optional<CheckpointException> checkpointFailed(
      long checkpointId, AbortReason reason, String why, Throwable cause) {
    consecutiveFailures++;
    failuresTotal++;
    if (consecutiveFailures <= tolerableFailures) {
      return Optional.empty();
    }
    int failures = consecutiveFailures;
    // The job fails over; its next attempt starts counting afresh, as in Flink.
    consecutiveFailures = 0;
    // Why the job fails first, then the details, which may be long (an expired checkpoint names
    // every subtask it waited for and where it runs).
    return Optional.of(
        new CheckpointException(
            "Checkpoint "
                + checkpointId
                + " failed ("
                + reason
                + "), "
                + failures
                + " checkpoint failure(s) in a row while"
                + " execution.checkpointing.tolerable-failed-checkpoints is "
                + tolerableFailures
                + ": "
                + why,
            cause));
  }

  /** A checkpoint completed: the failures before it are no longer in a row. */
  void checkpointCompleted() {
    consecutiveFailures = 0;
  }

  int consecutiveFailures() {
    return consecutiveFailures;
  }

  int failuresTotal() {
    return failuresTotal;
  }
}

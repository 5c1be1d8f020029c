package io.weir.api;

import java.util.concurrent.CompletableFuture;

/** A handle on a running job, returned by {@link StreamEnvironment#executeAsync}. */
public interface JobClient {

  JobID getJobID();

  CompletableFuture<JobStatus> getJobStatus();

  /** Completes when the job finished, or exceptionally with a {@link JobExecutionException}. */
  CompletableFuture<JobExecutionResult> getJobExecutionResult();

  /**
   * Statistics of the job's recent checkpoints, oldest first (the newest few hundred). Empty when
   * checkpointing is off.
   */
  default java.util.List<CheckpointStatistics> getCheckpointStatistics() {
    return java.util.List.of();
  }

  /** Cancels the job; completes once every task has stopped. */
  CompletableFuture<Void> cancel();
}

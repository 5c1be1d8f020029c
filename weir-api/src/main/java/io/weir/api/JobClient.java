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

  /**
   * Takes a savepoint while the job goes on: always aligned (also when unaligned checkpoints are
   * on), self-contained and relocatable, in the canonical format every state backend restores. Weir
   * never deletes it.
   *
   * @param directory where the savepoint's own directory is created, as a URI or local path; null
   *     for {@code execution.checkpointing.savepoint-dir}
   * @return completes with the savepoint's path (for {@code execution.state-recovery.path}), or
   *     exceptionally saying why there is none
   */
  default CompletableFuture<String> triggerSavepoint(String directory) {
    return CompletableFuture.failedFuture(
        new UnsupportedOperationException("This job client cannot take savepoints"));
  }

  /**
   * Stops the job with a savepoint (Flink's stop-with-savepoint): the sources emit the savepoint's
   * barrier and then nothing more; every task ends once the savepoint completed, after two-phase
   * commit sinks committed what it covers; the job ends FINISHED. If the savepoint fails the job
   * keeps running and the future fails saying why.
   *
   * @param directory as for {@link #triggerSavepoint}
   * @param drain true to end the input first, as at the end of a bounded input: the sources emit
   *     the final watermark, event-time timers and windows fire (Flink's {@code --drain}); for a
   *     job that will not be resumed
   * @return completes with the savepoint's path once the job finished
   */
  default CompletableFuture<String> stopWithSavepoint(String directory, boolean drain) {
    return CompletableFuture.failedFuture(
        new UnsupportedOperationException("This job client cannot stop with a savepoint"));
  }
}

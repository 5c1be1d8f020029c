package io.weir.api;

import java.util.concurrent.CompletableFuture;

/** A handle on a running job, returned by {@link StreamEnvironment#executeAsync}. */
public interface JobClient {

  JobID getJobID();

  CompletableFuture<JobStatus> getJobStatus();

  /** Completes when the job finished, or exceptionally with a {@link JobExecutionException}. */
  CompletableFuture<JobExecutionResult> getJobExecutionResult();

  /** Cancels the job; completes once every task has stopped. */
  CompletableFuture<Void> cancel();
}

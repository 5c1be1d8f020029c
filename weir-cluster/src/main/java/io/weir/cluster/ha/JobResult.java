package io.weir.cluster.ha;

import io.weir.api.JobStatus;

/**
 * How a job ended, as the job result store keeps it: a job with a result is never run again by a
 * new leader.
 *
 * @param jobId the job
 * @param jobName its name
 * @param status FINISHED, FAILED or CANCELED
 * @param endTimestamp when it ended, epoch millis
 * @param failure the failure's message for a failed job, else null
 * @param checkpointsToDelete the checkpoint directory ({@code execution.checkpointing.dir}) in
 *     which the job's clean-up deletes its checkpoints, as its retention policy says; null when
 *     they are kept or have no files (and in results recorded before Weir wrote it)
 */
public record JobResult(
    String jobId,
    String jobName,
    JobStatus status,
    long endTimestamp,
    String failure,
    String checkpointsToDelete) {

  /** A result whose clean-up deletes no checkpoint. */
  public JobResult(
      String jobId, String jobName, JobStatus status, long endTimestamp, String failure) {
    this(jobId, jobName, status, endTimestamp, failure, null);
  }

  public JobResult {
    if (!status.isGloballyTerminalState()) {
      throw new IllegalArgumentException(
          "Job " + jobId + " has not ended: " + status + " is no result");
    }
  }
}

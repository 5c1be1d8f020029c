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
 */
public record JobResult(
    String jobId, String jobName, JobStatus status, long endTimestamp, String failure) {

  public JobResult {
    if (!status.isGloballyTerminalState()) {
      throw new IllegalArgumentException(
          "Job " + jobId + " has not ended: " + status + " is no result");
    }
  }
}

package io.weir.api;

/** A job failed; the cause names the failing operator and subtask. */
public class JobExecutionException extends Exception {
  private static final long serialVersionUID = 1L;

  private final transient JobID jobId;

  public JobExecutionException(JobID jobId, String message, Throwable cause) {
    super(message, cause);
    this.jobId = jobId;
  }

  public JobID getJobID() {
    return jobId;
  }
}

package io.weir.api;

/** The life of a job, with Flink's names. */
public enum JobStatus {
  /** Accepted, tasks not yet deployed. */
  CREATED,
  /** Tasks are deployed and running. */
  RUNNING,
  /** A task failed; the others are being cancelled. */
  FAILING,
  /** Failed for good: no restart left. */
  FAILED,
  /** {@code cancel()} was called; tasks are stopping. */
  CANCELLING,
  /** Cancelled. */
  CANCELED,
  /** Every task finished its input. */
  FINISHED,
  /** Waiting to be redeployed after a failure. */
  RESTARTING,
  /**
   * Taken over by a new leader (high availability), which waits for the TaskManagers to report the
   * job's running subtasks before adopting them or restarting the job.
   */
  RECONCILING,
  /**
   * This JobManager no longer leads (high availability): it stopped acting for the job, which the
   * new leader recovers. Terminal for this JobManager only.
   */
  SUSPENDED;

  /** True for the states a job never leaves. */
  public boolean isGloballyTerminalState() {
    return this == FAILED || this == CANCELED || this == FINISHED;
  }
}

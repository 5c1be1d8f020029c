package io.weir.runtime.jobmaster;

import io.weir.api.JobStatus;

/**
 * Records that a job reached a globally terminal state before its clean-up deletes what running it
 * again would need (Flink's dirty job result): with high availability a JobManager that took over
 * from one that stopped between the two would otherwise find the job submitted, its checkpoints
 * gone, and run it from its beginning, committing what its sinks had committed once already.
 */
@FunctionalInterface
public interface JobEndRecorder {

  /** Nothing to record: a job no other JobManager can take over. */
  JobEndRecorder NONE = (status, endTimeMillis, failure, checkpointsToDelete) -> {};

  /**
   * Records how the job ended.
   *
   * @param status finished, failed or cancelled
   * @param endTimeMillis when it ended, epoch millis
   * @param failure why it failed or that it was cancelled; null when it finished
   * @param checkpointsToDelete the checkpoint directory ({@code execution.checkpointing.dir}) whose
   *     job directory the clean-up empties, as the retention policy says; null when the checkpoints
   *     are kept (a failure, {@code RETAIN_ON_CANCELLATION}) or have no files. A JobManager that
   *     takes over a clean-up left undone finishes it from this
   * @throws Exception if the end could not be recorded (a newer leader took over, the store is out
   *     of reach): the job's checkpoints are then kept for whoever runs it next
   */
  void recordEnd(JobStatus status, long endTimeMillis, String failure, String checkpointsToDelete)
      throws Exception;
}

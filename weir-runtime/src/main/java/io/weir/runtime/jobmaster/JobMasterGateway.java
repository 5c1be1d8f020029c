package io.weir.runtime.jobmaster;

import io.weir.api.CheckpointStatistics;
import io.weir.runtime.checkpoint.OperatorSubtaskState;
import io.weir.runtime.task.TaskState;
import io.weir.runtime.taskexecutor.ExecutionAttemptId;
import java.util.Map;

/**
 * What task executors tell the job master. In one process method calls; across processes, messages
 * of the control plane. Any thread; implementations do not block the caller.
 */
public interface JobMasterGateway {

  /** The subtask wrote its snapshot of checkpoint {@code checkpointId}. */
  void acknowledgeCheckpoint(
      ExecutionAttemptId task,
      long checkpointId,
      Map<String, OperatorSubtaskState> states,
      CheckpointStatistics.SubtaskCheckpointStatistics statistics);

  /** The subtask could not take its snapshot of checkpoint {@code checkpointId}. */
  void declineCheckpoint(ExecutionAttemptId task, long checkpointId, Throwable cause);

  /**
   * A subtask has no more input (a source ended, or every input of another task did): once every
   * subtask has, a final checkpoint should come soon.
   */
  void reachedEndOfInput(ExecutionAttemptId task);

  /**
   * The subtask's two-phase-commit sink committed on the completion of checkpoint {@code
   * checkpointId}, or failed to: statistics for the flight recorder, never needed for the
   * checkpoint. Ignored by default.
   */
  default void sinkCommitted(
      ExecutionAttemptId task, long checkpointId, CheckpointStatistics.SinkCommit commit) {}

  /**
   * The subtask reached a terminal state.
   *
   * @param failure why it failed, for FAILED; otherwise null
   * @param metrics its counters, such as records in and out
   */
  void taskTerminated(
      ExecutionAttemptId task, TaskState state, Throwable failure, TaskMetrics metrics);

  /**
   * Counters of one subtask.
   *
   * @param vertexName its vertex
   * @param recordsIn records it read
   * @param recordsOut records it emitted
   * @param bytesIn bytes it read from its input channels
   * @param bytesOut bytes it sent to other subtasks
   */
  record TaskMetrics(
      String vertexName, long recordsIn, long recordsOut, long bytesIn, long bytesOut) {}
}

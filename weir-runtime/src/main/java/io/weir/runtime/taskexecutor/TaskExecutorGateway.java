package io.weir.runtime.taskexecutor;

import io.weir.runtime.checkpoint.CheckpointOptions;
import java.util.List;

/**
 * What the job master asks of a task executor. In one process these are method calls on {@link
 * TaskExecutor}; across processes, messages of the control plane. Every call returns at once; what
 * happens is reported back through the job master's gateway.
 */
public interface TaskExecutorGateway {

  /**
   * Deploys the subtasks of one attempt that this task executor runs, wires their channels and
   * starts them.
   */
  void submitTasks(List<TaskDeploymentDescriptor> tasks);

  /**
   * A source subtask takes checkpoint (or savepoint) {@code checkpointId} as {@code options} say
   * and emits its barrier.
   */
  void triggerCheckpoint(
      ExecutionAttemptId task, long checkpointId, long timestamp, CheckpointOptions options);

  /**
   * Checkpoint {@code checkpointId} completed; {@code isFinal}: every subtask had ended its input
   * when it took it, so a subtask whose input ended may finish.
   */
  void notifyCheckpointComplete(ExecutionAttemptId task, long checkpointId, boolean isFinal);

  /** Checkpoint {@code checkpointId} was aborted. */
  void notifyCheckpointAborted(ExecutionAttemptId task, long checkpointId);

  /** Stops the subtask as soon as possible; its end is reported as CANCELED. */
  void cancelTask(ExecutionAttemptId task);

  /**
   * The job ended: once its last subtask here ended, its resources (timer, snapshot threads) are
   * released.
   */
  void releaseJob(String jobId);
}

package io.weir.runtime.taskexecutor;

import io.weir.runtime.checkpoint.CheckpointOptions;
import io.weir.runtime.graph.JobGraph;
import java.util.List;
import java.util.concurrent.CompletableFuture;

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
   * Attempt {@code attempt} of the job fails for a reason of the job's own, not a subtask's (more
   * checkpoint failures than tolerated, running subtasks that could not be adopted): for the job's
   * exception history, beside the failures its subtasks report as they end.
   */
  default void attemptFailed(int attempt, Throwable cause) {}

  /**
   * The job ended: once its last subtask here ended, its resources (timer, snapshot threads) are
   * released.
   */
  void releaseJob(String jobId);

  /**
   * A sample of the counters of every subtask of job {@code jobId} running on this task executor
   * (for the REST API's vertices and back-pressure). Subtasks of a task executor that does not
   * answer in time are left out, never waited for: the caller shows them as unknown. Default: none.
   */
  default CompletableFuture<List<SubtaskSample>> sampleSubtasks(String jobId) {
    return CompletableFuture.completedFuture(List.of());
  }

  /** Where a submitted subtask stands before it runs, for the REST API's honest states. */
  enum Placement {
    /** Waiting for slots (Flink's SCHEDULED). */
    SCHEDULED,
    /** Has its slot; its deployment is under way (Flink's DEPLOYING). */
    DEPLOYING,
    /** Deployed, or not known here. */
    DEPLOYED
  }

  /**
   * Where {@code task}, submitted and not ended, stands: a task executor that waits for slots says
   * so. Default: {@link Placement#DEPLOYED} (in one process a subtask is deployed at once).
   */
  default Placement placement(ExecutionAttemptId task) {
    return Placement.DEPLOYED;
  }

  /**
   * Where {@code task} runs, so that a message lets an operator find it (a checkpoint that expired
   * names each subtask it waited for with this): the id and address of its TaskManager as the
   * cluster knows them, {@code tm-1 (127.0.0.1:41234)}; null while it waits for a slot, or once it
   * ended. Answers from what this gateway knows and calls no one: the checkpoint coordinator asks
   * under its lock. Default: {@code local (localhost)}, this process, as {@link SubtaskSample#of}
   * names its TaskManager for the REST API.
   */
  default String location(ExecutionAttemptId task) {
    return "local (localhost)";
  }

  /**
   * The subtasks of job {@code jobId} that a lost job master left running and that task executors
   * offer to this one (high availability): known once every subtask of {@code graph} is accounted
   * for, one of them has ended, or the wait for offers is over. In one process nothing outlives a
   * job master, so the default is {@link RunningAttempt#NONE}.
   */
  default CompletableFuture<RunningAttempt> runningAttempt(JobGraph graph, String jobId) {
    return CompletableFuture.completedFuture(RunningAttempt.NONE);
  }

  /**
   * Takes over {@code tasks}, every subtask of the attempt {@code offered} names: their calls and
   * reports go to this job master from now on, and those not in {@code offered.running()} count as
   * not deployed. Completes once every task executor that runs some confirmed that it still holds
   * them for adoption; fails, naming the task executor, when one no longer does.
   */
  default CompletableFuture<Void> adopt(RunningAttempt offered, List<ExecutionAttemptId> tasks) {
    return CompletableFuture.failedFuture(
        new UnsupportedOperationException("this task executor offers no running subtasks"));
  }
}

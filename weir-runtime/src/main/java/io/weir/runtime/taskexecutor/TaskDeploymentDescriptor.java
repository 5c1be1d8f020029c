package io.weir.runtime.taskexecutor;

import io.weir.runtime.checkpoint.BarrierHandler;
import io.weir.runtime.checkpoint.TaskRestore;
import io.weir.runtime.graph.JobGraph;

/**
 * What a task executor receives to run one subtask: which subtask of which job, how it takes part
 * in checkpoints, and the state it restores as handles (it reads the state itself; the job master
 * never holds state bytes).
 *
 * @param id the subtask and the attempt it belongs to
 * @param graph the job; in one process the graph itself, across processes its serialized payload,
 *     deserialized only inside the task manager with the job's class loader
 * @param checkpointing whether and how the subtask takes part in checkpoints
 * @param restore what the subtask starts from (a fresh start carries a source's splits)
 * @param locations where every subtask of the attempt runs, for the channels to other processes
 */
public record TaskDeploymentDescriptor(
    ExecutionAttemptId id,
    JobGraph graph,
    Checkpointing checkpointing,
    TaskRestore restore,
    SubtaskLocations locations) {

  /** A subtask of an attempt that runs entirely in one process. */
  public TaskDeploymentDescriptor(
      ExecutionAttemptId id, JobGraph graph, Checkpointing checkpointing, TaskRestore restore) {
    this(id, graph, checkpointing, restore, SubtaskLocations.LOCAL);
  }

  /** The same subtask, placed: its attempt runs at {@code locations}. */
  public TaskDeploymentDescriptor at(SubtaskLocations locations) {
    return new TaskDeploymentDescriptor(id, graph, checkpointing, restore, locations);
  }

  /**
   * How the subtask takes part in checkpoints.
   *
   * @param enabled false when the job has checkpointing off
   * @param exactlyOnce aligned barriers (true) or at-least-once
   * @param alignment how exactly-once barriers are aligned
   * @param alignedTimeoutMillis with ALIGNED_THEN_UNALIGNED, how long alignment may take
   */
  public record Checkpointing(
      boolean enabled,
      boolean exactlyOnce,
      BarrierHandler.Alignment alignment,
      long alignedTimeoutMillis) {}
}

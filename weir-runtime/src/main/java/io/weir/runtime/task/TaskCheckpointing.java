package io.weir.runtime.task;

import io.weir.api.CheckpointStatistics;
import io.weir.runtime.checkpoint.BarrierHandler;
import io.weir.runtime.checkpoint.OperatorSubtaskState;
import io.weir.runtime.state.TaskLocalStateStore;
import io.weir.runtime.storage.CheckpointStorageWorkerView;
import java.util.Map;
import java.util.concurrent.Executor;

/**
 * How a task takes part in checkpoints.
 *
 * @param enabled false when the job has checkpointing off
 * @param exactlyOnce aligned barriers (true) or at-least-once
 * @param storage where snapshots are written
 * @param asyncExecutor runs the asynchronous part of snapshots
 * @param responder where acknowledgements go
 * @param alignment how exactly-once barriers are aligned
 * @param alignedTimeoutMillis with ALIGNED_THEN_UNALIGNED, how long alignment may take
 * @param localState the subtask's local copies of snapshots (task-local recovery), or null
 */
public record TaskCheckpointing(
    boolean enabled,
    boolean exactlyOnce,
    CheckpointStorageWorkerView storage,
    Executor asyncExecutor,
    Responder responder,
    BarrierHandler.Alignment alignment,
    long alignedTimeoutMillis,
    TaskLocalStateStore localState) {

  /** Checkpointing off. */
  public static TaskCheckpointing disabled() {
    return new TaskCheckpointing(
        false, true, null, Runnable::run, null, BarrierHandler.Alignment.ALIGNED, 0, null);
  }

  /** The coordinator's side, as the task sees it. Any thread. */
  public interface Responder {
    void acknowledge(
        int vertex,
        int subtask,
        long checkpointId,
        Map<String, OperatorSubtaskState> states,
        CheckpointStatistics.SubtaskCheckpointStatistics statistics);

    void decline(int vertex, int subtask, long checkpointId, Throwable cause);

    /** A source subtask has no more input: a final checkpoint should come soon. */
    void reachedEndOfInput(int vertex, int subtask);

    /**
     * The subtask's two-phase-commit sink committed (or failed to commit) on the completion of
     * checkpoint {@code checkpointId}: the flight recorder's late segment. Ignored by default.
     */
    default void sinkCommitted(
        int vertex, int subtask, long checkpointId, CheckpointStatistics.SinkCommit commit) {}
  }
}

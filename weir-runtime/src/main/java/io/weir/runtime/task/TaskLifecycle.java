package io.weir.runtime.task;

import io.weir.runtime.network.ChannelEvent;

/**
 * Where a subtask is between its first record and its end, as one phase changed by one step
 * function ({@link #on}): reading input, suspended by a stop-with-savepoint, draining for one,
 * stopped by one, or past the end of its input waiting for the final checkpoint. The thread's own
 * start and end ({@code TaskState}) and cancellation are the {@link StreamTask}'s; this is only
 * what the checkpoint protocol does to the task's input in between.
 *
 * <pre>
 *                 sync savepoint         abort of that savepoint
 *   RUNNING ──────────────────▶ SUSPENDED ─────────────────────▶ RUNNING
 *     │ │ drain savepoint                │ final checkpoint complete
 *     │ └──────────────▶ DRAIN_REQUESTED │ (RUNNING, DRAIN_REQUESTED alike)
 *     │                       │          ▼
 *     │ end of input          │ end  STOPPED_WITH_SAVEPOINT   (leave without ending the input)
 *     ▼                       ▼ of input
 *   INPUT_ENDED        DRAINED_FOR_SAVEPOINT
 *     │ final checkpoint complete │
 *     └────────▶ FINAL_CHECKPOINT_COMPLETED ◀┘
 * </pre>
 *
 * <p>Task thread only.
 */
final class TaskLifecycle {

  /** The phases; see the class comment for the transitions. */
  enum Phase {
    /** Reading input. */
    RUNNING,
    /**
     * A source emitted the barrier of a stop-with-savepoint without drain: it emits nothing, not
     * even watermarks, until the savepoint completed (it stops) or was aborted (it reads on).
     */
    SUSPENDED,
    /** A source was asked to stop with a savepoint and drain: the loop ends the input first. */
    DRAIN_REQUESTED,
    /** A stop-with-savepoint without drain completed: the task ends without ending its input. */
    STOPPED_WITH_SAVEPOINT,
    /** The input ended: the task serves checkpoints until the final one completed. */
    INPUT_ENDED,
    /** A stop-with-savepoint with drain ended the input: the task ends when the savepoint has. */
    DRAINED_FOR_SAVEPOINT,
    /** The final checkpoint (or the draining savepoint) completed: the task may finish. */
    FINAL_CHECKPOINT_COMPLETED;

    boolean inputEnded() {
      return this == INPUT_ENDED
          || this == DRAINED_FOR_SAVEPOINT
          || this == FINAL_CHECKPOINT_COMPLETED;
    }
  }

  /** What changes the phase. */
  sealed interface Event {}

  /** A source emitted the barrier of stop-with-savepoint {@code savepointId} without drain. */
  record SuspendedForSavepoint(long savepointId) implements Event {}

  /** A source was asked to stop with a savepoint and drain; {@code barrier} goes out at the end. */
  record DrainRequested(ChannelEvent.CheckpointBarrier barrier) implements Event {}

  /** Checkpoint {@code checkpointId} was aborted. */
  record CheckpointAborted(long checkpointId) implements Event {}

  /** A checkpoint completed; {@code isFinal}: every subtask had ended or stopped for it. */
  record CheckpointCompleted(boolean isFinal) implements Event {}

  /** The task's input ended (its operators finished, end of data went downstream). */
  record InputEnded() implements Event {}

  private Phase phase = Phase.RUNNING;

  /** The savepoint a {@link Phase#SUSPENDED} source waits for; -1 in other phases. */
  private long suspendedFor = -1;

  /** The barrier a {@link Phase#DRAIN_REQUESTED} source emits after its input; else null. */
  private ChannelEvent.CheckpointBarrier drainBarrier;

  Phase phase() {
    return phase;
  }

  /**
   * The step function: the phase after {@code event}; an event that does not apply changes nothing.
   */
  Phase on(Event event) {
    if (event instanceof SuspendedForSavepoint e) {
      if (phase == Phase.RUNNING) {
        phase = Phase.SUSPENDED;
        suspendedFor = e.savepointId();
      }
    } else if (event instanceof DrainRequested e) {
      if (!phase.inputEnded() && phase != Phase.STOPPED_WITH_SAVEPOINT) {
        phase = Phase.DRAIN_REQUESTED;
        drainBarrier = e.barrier();
        suspendedFor = -1;
      }
    } else if (event instanceof CheckpointAborted e) {
      if (phase == Phase.SUSPENDED && suspendedFor == e.checkpointId()) {
        phase = Phase.RUNNING;
        suspendedFor = -1;
      }
    } else if (event instanceof CheckpointCompleted e) {
      if (e.isFinal()) {
        // Only a stop-with-savepoint without drain is final for a task whose input goes on.
        phase =
            phase.inputEnded() ? Phase.FINAL_CHECKPOINT_COMPLETED : Phase.STOPPED_WITH_SAVEPOINT;
        suspendedFor = -1;
      }
    } else if (event instanceof InputEnded) {
      if (phase == Phase.DRAIN_REQUESTED) {
        phase = Phase.DRAINED_FOR_SAVEPOINT;
      } else if (!phase.inputEnded()) {
        phase = Phase.INPUT_ENDED;
      }
    }
    return phase;
  }

  /** True when the mailbox loop must stop reading input: stopped with a savepoint, or to drain. */
  boolean leavesInputLoop() {
    return phase == Phase.STOPPED_WITH_SAVEPOINT || phase == Phase.DRAIN_REQUESTED;
  }

  /** True while a source waits for its stop-with-savepoint to complete. */
  boolean suspended() {
    return phase == Phase.SUSPENDED;
  }

  /** True once the input ended: snapshots then are final ones. */
  boolean inputEnded() {
    return phase.inputEnded();
  }

  /** The barrier of the draining savepoint, or null when no drain was requested. */
  ChannelEvent.CheckpointBarrier drainBarrier() {
    return phase == Phase.DRAIN_REQUESTED ? drainBarrier : null;
  }

  /**
   * True when a task past its input may finish: the final checkpoint completed, or, without
   * checkpointing, at once (unless it drained for a savepoint, which must complete first).
   */
  boolean mayFinish(boolean checkpointingEnabled) {
    return phase == Phase.FINAL_CHECKPOINT_COMPLETED
        || (!checkpointingEnabled && phase == Phase.INPUT_ENDED);
  }

  @Override
  public String toString() {
    return phase + (suspendedFor >= 0 ? " (savepoint " + suspendedFor + ")" : "");
  }
}

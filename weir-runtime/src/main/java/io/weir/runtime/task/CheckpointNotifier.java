package io.weir.runtime.task;

import io.weir.api.CheckpointStatistics;
import io.weir.runtime.checkpoint.CheckpointOptions;
import io.weir.runtime.network.ChannelEvent;
import io.weir.runtime.operators.OperatorException;
import io.weir.runtime.operators.StreamOperator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What the checkpoint coordinator tells one task — take checkpoint {@code n}, checkpoint {@code n}
 * completed, checkpoint {@code n} was aborted — brought onto the task's thread as mail, between two
 * records. A trigger moves the task's {@link TaskLifecycle} around its snapshot (a
 * stop-with-savepoint drains or suspends the input); a completion reaches the operators once
 * however often it is sent, and a two-phase-commit sink's commit on it is timed and reported for
 * the flight recorder; an abort resumes a source suspended for that savepoint. The snapshot itself
 * is the {@link SubtaskCheckpointCoordinator}'s.
 *
 * <p>Its methods may be called from any thread; what they do runs on the task thread.
 */
final class CheckpointNotifier {

  private static final Logger LOG = LoggerFactory.getLogger(CheckpointNotifier.class);

  private final StreamTask task;
  private final TaskCheckpointing checkpointing;
  private final SubtaskCheckpointCoordinator checkpoints;
  private final TaskLifecycle lifecycle;

  /** The newest checkpoint the operators were told completed; task thread only. */
  private long lastNotifiedComplete = -1;

  CheckpointNotifier(
      StreamTask task,
      TaskCheckpointing checkpointing,
      SubtaskCheckpointCoordinator checkpoints,
      TaskLifecycle lifecycle) {
    this.task = task;
    this.checkpointing = checkpointing;
    this.checkpoints = checkpoints;
    this.lifecycle = lifecycle;
  }

  /**
   * A source takes checkpoint or savepoint {@code id}. A stop-with-savepoint without drain emits
   * its barrier and then no record until the savepoint completed or was aborted; one with drain
   * first ends the input (final watermark, end of data), then emits its barrier.
   */
  void triggerCheckpoint(long checkpointId, long timestamp, CheckpointOptions options) {
    task.mailbox.put(
        () -> {
          ChannelEvent.CheckpointBarrier barrier =
              checkpoints.barrierForTrigger(checkpointId, timestamp, options);
          if (options.drain() && !lifecycle.inputEnded()) {
            // The loop ends the input, then emits the barrier.
            lifecycle.on(new TaskLifecycle.DrainRequested(barrier));
            return;
          }
          task.performCheckpoint(barrier);
          if (options.isSynchronous()) {
            lifecycle.on(new TaskLifecycle.SuspendedForSavepoint(checkpointId));
          }
        });
  }

  /**
   * Checkpoint {@code id} completed. {@code isFinal}: every subtask had ended its input when it
   * took this checkpoint, so a task whose input ended may finish now.
   */
  void checkpointComplete(long checkpointId, boolean isFinal) {
    long notifiedAt = System.currentTimeMillis();
    task.mailbox.put(
        () -> {
          if (checkpointId <= lastNotifiedComplete) {
            // A new leader that adopted this task notifies the newest checkpoint again, in case
            // the lost leader's notification never came: once is what operators see.
            return;
          }
          lastNotifiedComplete = checkpointId;
          if (commitsOnCheckpointComplete()) {
            notifyCheckpointCompleteTimed(checkpointId, notifiedAt);
          } else {
            task.notifyCheckpointComplete(checkpointId);
          }
          lifecycle.on(new TaskLifecycle.CheckpointCompleted(isFinal));
        });
  }

  /** True when an operator of the chain is a sink that commits on a checkpoint's completion. */
  private boolean commitsOnCheckpointComplete() {
    for (StreamOperator<?> op : task.chain.operatorsHeadFirst()) {
      if (op.commitsOnCheckpointComplete()) {
        return true;
      }
    }
    return false;
  }

  /**
   * Notifies the chain of the completion and reports how long its sink's commit took, or why it
   * failed, for the flight recorder; a failed commit still fails the task. Task thread.
   */
  private void notifyCheckpointCompleteTimed(long checkpointId, long notifiedAt) throws Exception {
    long start = System.nanoTime();
    String failure = null;
    try {
      task.notifyCheckpointComplete(checkpointId);
    } catch (Exception | Error e) {
      failure = e instanceof OperatorException ? e.getMessage() : e.toString();
      throw e;
    } finally {
      TaskCheckpointing.Responder responder = checkpointing.responder();
      if (responder != null) {
        try {
          responder.sinkCommitted(
              task.vertex.getIndex(),
              task.taskInfo.indexOfThisSubtask(),
              checkpointId,
              new CheckpointStatistics.SinkCommit(
                  notifiedAt, (System.nanoTime() - start) / 1_000_000, failure));
        } catch (RuntimeException e) {
          // Statistics only: a report that cannot be sent must not fail the task.
          LOG.warn(
              "{}: could not report the commit of checkpoint {}",
              task.taskInfo.taskNameWithSubtasks(),
              checkpointId,
              e);
        }
      }
    }
  }

  /** Checkpoint {@code id} was aborted. */
  void checkpointAborted(long checkpointId) {
    task.mailbox.put(
        () -> {
          if (lifecycle.suspended()
              && lifecycle.on(new TaskLifecycle.CheckpointAborted(checkpointId))
                  == TaskLifecycle.Phase.RUNNING) {
            LOG.info(
                "{}: the stop-with-savepoint {} was aborted; reading on",
                task.taskInfo.taskNameWithSubtasks(),
                checkpointId);
          }
          task.notifyCheckpointAborted(checkpointId);
        });
  }
}

package io.weir.runtime.checkpoint;

import io.weir.api.CheckpointStatistics;
import java.util.List;
import java.util.function.Supplier;

/**
 * The flight recorder's late segment: the commits that two-phase-commit sinks report after their
 * checkpoint completed, when the history beside that checkpoint's metadata is written already. Each
 * report is recorded in the {@link CheckpointFlightRecorder}, and when it is about the newest
 * completed checkpoint, the history beside it is written again on the I/O executor — once for
 * however many commits arrive before that write runs. Statistics only: nothing here can fail or
 * hold up a checkpoint, and a restore never reads what it writes.
 *
 * <p>{@link #sinkCommitted} is called under the {@link CheckpointCoordinator}'s lock, which is
 * {@code lock}; the rewrite takes that lock to read the history and writes it outside.
 */
final class SinkCommitHistory {

  private final Object lock;
  private final CheckpointFlightRecorder recorder;
  private final Supplier<List<CompletedCheckpoint>> retained;
  private final CheckpointCoordinatorContext context;

  /** A rewrite of the history with newly reported sink commits waits on the I/O executor. */
  private boolean historyRewriteQueued;

  /**
   * @param lock the coordinator's lock
   * @param retained the retained completed checkpoints; called under {@code lock}
   * @param context whose I/O executor runs the rewrites, after the deletes queued before them
   */
  SinkCommitHistory(
      Object lock,
      CheckpointFlightRecorder recorder,
      Supplier<List<CompletedCheckpoint>> retained,
      CheckpointCoordinatorContext context) {
    this.lock = lock;
    this.recorder = recorder;
    this.retained = retained;
    this.context = context;
  }

  /**
   * Subtask {@code task}'s sink committed (or failed to) on the completion of checkpoint {@code
   * checkpointId}: recorded, and the history beside that checkpoint rewritten when it is still the
   * newest completed one. Under the coordinator's lock.
   */
  void sinkCommitted(
      CheckpointCoordinator.TaskKey task,
      long checkpointId,
      CheckpointStatistics.SinkCommit commit) {
    if (!recorder.sinkCommitted(checkpointId, task.vertex(), task.subtask(), commit)) {
      return;
    }
    CheckpointStatistics latest = recorder.latestCompleted();
    if (latest != null
        && latest.checkpointId() == checkpointId
        && latest.externalPath() != null
        && !historyRewriteQueued) {
      historyRewriteQueued = true;
      context.ioExecutor().execute(this::rewriteHistory);
    }
  }

  /**
   * Writes the history beside the newest completed checkpoint or savepoint again, with the sink
   * commits reported since. On the I/O executor, which runs the deletes of checkpoint files in
   * order: a checkpoint still retained when this runs is deleted, if at all, after it.
   */
  private void rewriteHistory() {
    String pointer;
    CheckpointHistory history;
    synchronized (lock) {
      historyRewriteQueued = false;
      CheckpointStatistics latest = recorder.latestCompleted();
      if (latest == null || latest.externalPath() == null) {
        return;
      }
      boolean kept =
          latest.savepoint()
              || retained.get().stream().anyMatch(c -> c.checkpointId() == latest.checkpointId());
      if (!kept) {
        return; // subsumed or discarded meanwhile: its directory is going
      }
      pointer = latest.externalPath();
      history = recorder.history();
    }
    recorder.write(pointer, history);
  }
}

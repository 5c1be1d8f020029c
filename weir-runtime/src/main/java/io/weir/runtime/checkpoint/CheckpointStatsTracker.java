package io.weir.runtime.checkpoint;

import io.weir.api.CheckpointStatistics;
import io.weir.api.CheckpointStatistics.Status;
import io.weir.api.CheckpointStatistics.SubtaskCheckpointStatistics;
import java.util.LinkedHashMap;
import java.util.List;

/**
 * The statistics of the job's recent checkpoints and savepoints, one record each, replaced as it
 * moves from in progress to completed or failed (Flink's {@code CheckpointStatsTracker}). Keeps the
 * newest {@value #STATISTICS_KEPT}, so a long-running job's history stays bounded. Reads no clock:
 * the caller says when a checkpoint ended. Not thread-safe: the {@link CheckpointCoordinator} calls
 * it under its lock.
 */
final class CheckpointStatsTracker {

  /** How many checkpoints' statistics are kept; older ones are forgotten. */
  static final int STATISTICS_KEPT = 500;

  /** By checkpoint id, in the order first recorded, which is the order of ids. */
  private final LinkedHashMap<Long, CheckpointStatistics> history = new LinkedHashMap<>();

  /**
   * Records checkpoint {@code checkpointId}, triggered at {@code triggerTimestamp}, as still in
   * progress with what its subtasks acknowledged so far.
   */
  void recordInProgress(
      long checkpointId,
      boolean savepoint,
      long triggerTimestamp,
      List<SubtaskCheckpointStatistics> subtasks) {
    record(checkpointId, savepoint, Status.IN_PROGRESS, triggerTimestamp, -1, subtasks, null, null);
  }

  /**
   * Records checkpoint {@code checkpointId} as completed at {@code endTime}, kept at {@code
   * externalPath}.
   */
  void recordCompleted(
      long checkpointId,
      boolean savepoint,
      long triggerTimestamp,
      long endTime,
      List<SubtaskCheckpointStatistics> subtasks,
      String externalPath) {
    record(
        checkpointId,
        savepoint,
        Status.COMPLETED,
        triggerTimestamp,
        endTime - triggerTimestamp,
        subtasks,
        externalPath,
        null);
  }

  /** Records checkpoint {@code checkpointId} as aborted at {@code endTime}, and why. */
  void recordFailed(
      long checkpointId,
      boolean savepoint,
      long triggerTimestamp,
      long endTime,
      List<SubtaskCheckpointStatistics> subtasks,
      String why) {
    record(
        checkpointId,
        savepoint,
        Status.FAILED,
        triggerTimestamp,
        endTime - triggerTimestamp,
        subtasks,
        null,
        why);
  }

  private void record(
      long checkpointId,
      boolean savepoint,
      Status status,
      long triggerTimestamp,
      long durationMillis,
      List<SubtaskCheckpointStatistics> subtasks,
      String externalPath,
      String failureMessage) {
    // One subtask that took it unaligned makes the checkpoint unaligned: it holds channel state.
    boolean unaligned = subtasks.stream().anyMatch(SubtaskCheckpointStatistics::unaligned);
    history.put(
        checkpointId,
        new CheckpointStatistics(
            checkpointId,
            status,
            triggerTimestamp,
            durationMillis,
            unaligned,
            subtasks,
            externalPath,
            savepoint,
            failureMessage));
    while (history.size() > STATISTICS_KEPT) {
      history.remove(history.keySet().iterator().next());
    }
  }

  /** The recent checkpoints, oldest first. */
  List<CheckpointStatistics> statistics() {
    return List.copyOf(history.values());
  }
}

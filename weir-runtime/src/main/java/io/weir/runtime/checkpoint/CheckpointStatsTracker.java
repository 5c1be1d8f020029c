package io.weir.runtime.checkpoint;

import io.weir.api.CheckpointStatistics;
import io.weir.api.CheckpointStatistics.Status;
import io.weir.api.CheckpointStatistics.SubtaskCheckpointStatistics;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Set;

/**
 * The statistics of the job's recent checkpoints and savepoints, one record each, replaced as it
 * moves from in progress to completed or failed (Flink's {@code CheckpointStatsTracker}). Keeps the
 * newest {@code web.checkpoints.history}, so a long-running job's history stays bounded. Reads no
 * clock: the caller says when a checkpoint ended. Not thread-safe: the {@link
 * CheckpointCoordinator} calls it under its lock.
 */
final class CheckpointStatsTracker {

  /** How many checkpoints' statistics are kept; older ones are forgotten. */
  private final int kept;

  /** By checkpoint id, in the order first recorded, which is the order of ids. */
  private final LinkedHashMap<Long, CheckpointStatistics> history = new LinkedHashMap<>();

  /** The checkpoints in progress, also those the history forgot. */
  private final Set<Long> inProgress = new HashSet<>();

  private long completed;
  private long failed;

  /** The newest checkpoint completed, or null. */
  private CheckpointStatistics latestCompleted;

  /**
   * Keeps the statistics of the newest {@code kept} checkpoints ({@code web.checkpoints.history}).
   */
  CheckpointStatsTracker(int kept) {
    if (kept < 1) {
      throw new IllegalArgumentException("web.checkpoints.history must be at least 1: " + kept);
    }
    this.kept = kept;
  }

  /**
   * Takes up the history an earlier JobManager or attempt of the job left beside a checkpoint's
   * metadata: its records become the oldest ones, its counts continue. Records of checkpoints
   * already known are not replaced.
   */
  void restore(CheckpointHistory earlier) {
    LinkedHashMap<Long, CheckpointStatistics> merged = new LinkedHashMap<>();
    for (CheckpointStatistics s : earlier.checkpoints()) {
      if (!history.containsKey(s.checkpointId()) && s.status() != Status.IN_PROGRESS) {
        merged.put(s.checkpointId(), s);
        if (s.status() == Status.COMPLETED
            && (latestCompleted == null || s.checkpointId() > latestCompleted.checkpointId())) {
          latestCompleted = s;
        }
      }
    }
    merged.putAll(history);
    history.clear();
    history.putAll(merged);
    trim();
    completed += earlier.completed();
    failed += earlier.failed();
  }

  /** What {@link #restore} takes up again: the ended checkpoints kept, and the counts. */
  CheckpointHistory snapshot() {
    List<CheckpointStatistics> ended = new java.util.ArrayList<>();
    for (CheckpointStatistics s : history.values()) {
      if (s.status() != Status.IN_PROGRESS) {
        ended.add(s);
      }
    }
    return new CheckpointHistory(completed, failed, ended);
  }

  /**
   * Records checkpoint {@code checkpointId}, triggered at {@code triggerTimestamp}, as still in
   * progress with what its subtasks acknowledged so far.
   */
  void recordInProgress(
      long checkpointId,
      boolean savepoint,
      long triggerTimestamp,
      List<SubtaskCheckpointStatistics> subtasks) {
    record(
        build(
            checkpointId,
            savepoint,
            Status.IN_PROGRESS,
            triggerTimestamp,
            -1,
            subtasks,
            null,
            null));
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
    record(completed(checkpointId, savepoint, triggerTimestamp, endTime, subtasks, externalPath));
  }

  private static CheckpointStatistics completed(
      long checkpointId,
      boolean savepoint,
      long triggerTimestamp,
      long endTime,
      List<SubtaskCheckpointStatistics> subtasks,
      String externalPath) {
    return build(
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
        build(
            checkpointId,
            savepoint,
            Status.FAILED,
            triggerTimestamp,
            endTime - triggerTimestamp,
            subtasks,
            null,
            why));
  }

  private void record(CheckpointStatistics recorded) {
    count(recorded);
    history.put(recorded.checkpointId(), recorded);
    trim();
  }

  private static CheckpointStatistics build(
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
    return new CheckpointStatistics(
        checkpointId,
        status,
        triggerTimestamp,
        durationMillis,
        unaligned,
        subtasks,
        externalPath,
        savepoint,
        failureMessage);
  }

  /**
   * What {@link #snapshot} will be once checkpoint {@code checkpointId} is recorded as completed
   * (see {@link #recordCompleted}), without recording it: the history written beside its metadata
   * before it is announced.
   */
  CheckpointHistory snapshotIfCompleted(
      long checkpointId,
      boolean savepoint,
      long triggerTimestamp,
      long endTime,
      List<SubtaskCheckpointStatistics> subtasks,
      String externalPath) {
    List<CheckpointStatistics> ended = new java.util.ArrayList<>();
    for (CheckpointStatistics s : history.values()) {
      if (s.status() != Status.IN_PROGRESS && s.checkpointId() != checkpointId) {
        ended.add(s);
      }
    }
    ended.add(
        completed(checkpointId, savepoint, triggerTimestamp, endTime, subtasks, externalPath));
    ended.sort(java.util.Comparator.comparingLong(CheckpointStatistics::checkpointId));
    List<CheckpointStatistics> kept =
        ended.subList(Math.max(0, ended.size() - this.kept), ended.size());
    return new CheckpointHistory(completed + 1, failed, kept);
  }

  /**
   * Adds the sink commit that subtask {@code subtask} of vertex {@code vertex} reported after
   * checkpoint {@code checkpointId} completed; false when the history does not hold that
   * checkpoint's subtask (forgotten, or never acknowledged by it).
   */
  boolean recordCommit(
      long checkpointId, int vertex, int subtask, CheckpointStatistics.SinkCommit commit) {
    CheckpointStatistics c = history.get(checkpointId);
    if (c == null) {
      return false;
    }
    List<SubtaskCheckpointStatistics> subtasks = new java.util.ArrayList<>(c.subtasks());
    boolean found = false;
    for (int i = 0; i < subtasks.size(); i++) {
      SubtaskCheckpointStatistics s = subtasks.get(i);
      if (s.vertexIndex() == vertex && s.subtaskIndex() == subtask) {
        subtasks.set(i, s.withCommit(commit));
        found = true;
      }
    }
    if (!found) {
      return false;
    }
    CheckpointStatistics updated =
        new CheckpointStatistics(
            c.checkpointId(),
            c.status(),
            c.triggerTimestamp(),
            c.endToEndDurationMillis(),
            c.unaligned(),
            subtasks,
            c.externalPath(),
            c.savepoint(),
            c.failureMessage());
    history.put(checkpointId, updated); // replaces in place: the order stays
    if (latestCompleted != null && latestCompleted.checkpointId() == checkpointId) {
      latestCompleted = updated;
    }
    return true;
  }

  private void trim() {
    while (history.size() > kept) {
      history.remove(history.keySet().iterator().next());
    }
  }

  /** Counts a checkpoint that starts or ends; one recorded again in the same status is not. */
  private void count(CheckpointStatistics recorded) {
    CheckpointStatistics before = history.get(recorded.checkpointId());
    boolean ended = before != null && before.status() != Status.IN_PROGRESS;
    switch (recorded.status()) {
      case IN_PROGRESS -> {
        if (!ended) {
          inProgress.add(recorded.checkpointId());
        }
      }
      case COMPLETED -> {
        if (inProgress.remove(recorded.checkpointId()) || !ended) {
          completed++;
        }
        if (latestCompleted == null || recorded.checkpointId() >= latestCompleted.checkpointId()) {
          latestCompleted = recorded;
        }
      }
      case FAILED -> {
        if (inProgress.remove(recorded.checkpointId()) || !ended) {
          failed++;
        }
      }
    }
  }

  /** How many checkpoints are in progress, completed and failed. */
  CheckpointStatsCounts counts() {
    return new CheckpointStatsCounts(inProgress.size(), completed, failed);
  }

  /** The newest completed checkpoint's statistics, or null before one completed. */
  CheckpointStatistics latestCompleted() {
    return latestCompleted;
  }

  /** The recent checkpoints, oldest first. */
  List<CheckpointStatistics> statistics() {
    return List.copyOf(history.values());
  }
}

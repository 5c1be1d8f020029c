package io.weir.runtime.checkpoint;

import io.weir.api.CheckpointStatistics.SubtaskCheckpointStatistics;
import io.weir.runtime.checkpoint.CheckpointCoordinator.OperatorInfo;
import io.weir.runtime.checkpoint.CheckpointCoordinator.TaskKey;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A triggered checkpoint waiting for its tasks' acknowledgements, and what they sent (Flink's
 * {@code PendingCheckpoint}). A savepoint is a {@link PendingSavepoint}. Not thread-safe: the
 * {@link CheckpointCoordinator} creates it and calls it under its lock; only its final fields are
 * read without the lock, while its metadata is written.
 */
sealed class PendingCheckpoint permits PendingSavepoint {

  final long id;

  /** When it was triggered, epoch millis. */
  final long timestamp;

  /**
   * When it was triggered on the coordinator's clock that only moves forward ({@link
   * CheckpointCoordinatorContext#relativeTimeMillis}): its durations are measured from here.
   */
  private final long relativeTimestamp;

  /** Checkpoint or savepoint, and how its barriers align. */
  final CheckpointOptions options;

  /**
   * The coordinator's count of stops when triggered: a checkpoint whose attempt was stopped while
   * its metadata was written is given up.
   */
  final long epoch;

  private final Set<TaskKey> notYetAcknowledged;
  private final Map<TaskKey, Map<String, OperatorSubtaskState>> acknowledged = new HashMap<>();
  private final List<SubtaskCheckpointStatistics> subtaskStatistics = new ArrayList<>();
  private Runnable cancelTimeout;
  private Throwable failureCause;
  private String externalPath;
  private long committedAt;

  /**
   * @param timestamp when it is triggered, on the wall clock
   * @param relativeTimestamp the same moment on the clock that only moves forward
   * @param tasks the subtasks that must acknowledge
   */
  PendingCheckpoint(
      long id,
      long timestamp,
      long relativeTimestamp,
      Set<TaskKey> tasks,
      CheckpointOptions options,
      long epoch) {
    this.id = id;
    this.timestamp = timestamp;
    this.relativeTimestamp = relativeTimestamp;
    this.notYetAcknowledged = new HashSet<>(tasks);
    this.options = options;
    this.epoch = epoch;
  }

  /**
   * Takes {@code task}'s state and, if it measured them, its statistics.
   *
   * @return false when {@code task} is not expected: a duplicate, or one of an earlier attempt
   */
  boolean acknowledge(
      TaskKey task,
      Map<String, OperatorSubtaskState> states,
      SubtaskCheckpointStatistics statistics) {
    if (!notYetAcknowledged.remove(task)) {
      return false;
    }
    acknowledged.put(task, states);
    if (statistics != null) {
      subtaskStatistics.add(statistics);
    }
    return true;
  }

  /** True while {@code task} has not acknowledged. */
  boolean awaits(TaskKey task) {
    return notYetAcknowledged.contains(task);
  }

  boolean isFullyAcknowledged() {
    return notYetAcknowledged.isEmpty();
  }

  /** The subtasks that have not acknowledged, for messages. */
  Set<TaskKey> notYetAcknowledged() {
    return Collections.unmodifiableSet(notYetAcknowledged);
  }

  /** The states the tasks sent so far, one map of operator id to state per task. */
  Collection<Map<String, OperatorSubtaskState>> acknowledgedStates() {
    return Collections.unmodifiableCollection(acknowledged.values());
  }

  /** What the acknowledging subtasks measured, in the order they acknowledged. */
  List<SubtaskCheckpointStatistics> subtaskStatistics() {
    return Collections.unmodifiableList(subtaskStatistics);
  }

  boolean isSavepoint() {
    return false;
  }

  /** {@code cancel} cancels its timeout timer, when it completes or is aborted. */
  void setTimeout(Runnable cancel) {
    this.cancelTimeout = cancel;
  }

  void cancelTimeout() {
    if (cancelTimeout != null) {
      cancelTimeout.run();
    }
  }

  /** Why it failed (a decline or a failed write), or null. */
  Throwable failureCause() {
    return failureCause;
  }

  void setFailureCause(Throwable cause) {
    this.failureCause = cause;
  }

  /** Where its metadata was written, once it was; null before. */
  String externalPath() {
    return externalPath;
  }

  /**
   * How long since it was triggered, at {@code relativeNow} on the clock that only moves forward.
   */
  long elapsedMillis(long relativeNow) {
    return Math.max(0, relativeNow - relativeTimestamp);
  }

  /**
   * The wall-clock time of {@code relativeNow}, for its statistics: the trigger's timestamp plus
   * the time since on the clock that only moves forward, so that a step of the wall clock while it
   * is pending (an NTP correction, a resumed virtual machine) makes none of its durations negative
   * or long. Flink's statistics take the wall clock at each event, and a step shows in them.
   */
  long wallClockAt(long relativeNow) {
    return timestamp + elapsedMillis(relativeNow);
  }

  /** When its metadata was written, epoch millis; 0 before. */
  long committedAt() {
    return committedAt;
  }

  /** Its metadata was written at {@code externalPath}, at {@code at}. */
  void committed(String externalPath, long at) {
    this.externalPath = externalPath;
    this.committedAt = at;
  }

  /**
   * The checkpoint every task acknowledged, with every operator of the job: a subtask that sent no
   * state for an operator has {@link OperatorSubtaskState#FINISHED} if it is in {@code
   * finishedTasks}, {@link OperatorSubtaskState#EMPTY} otherwise.
   */
  CompletedCheckpoint toCompleted(
      String jobId, List<OperatorInfo> operators, Set<TaskKey> finishedTasks) {
    List<OperatorState> operatorStates = new ArrayList<>();
    for (OperatorInfo op : operators) {
      List<OperatorSubtaskState> subtasks = new ArrayList<>();
      for (int i = 0; i < op.parallelism(); i++) {
        TaskKey key = new TaskKey(op.vertex(), i);
        Map<String, OperatorSubtaskState> ack = acknowledged.get(key);
        OperatorSubtaskState s = ack == null ? null : ack.get(op.operatorId());
        if (s == null) {
          s =
              finishedTasks.contains(key)
                  ? OperatorSubtaskState.FINISHED
                  : OperatorSubtaskState.EMPTY;
        }
        subtasks.add(s);
      }
      operatorStates.add(
          new OperatorState(
              op.operatorId(), op.name(), op.parallelism(), op.maxParallelism(), subtasks));
    }
    return new CompletedCheckpoint(jobId, id, timestamp, options.isSavepoint(), operatorStates);
  }
}

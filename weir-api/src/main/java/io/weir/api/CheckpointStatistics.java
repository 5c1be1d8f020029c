package io.weir.api;

import java.util.List;

/**
 * What happened to one checkpoint, as seen by the coordinator and every subtask.
 *
 * @param checkpointId the checkpoint
 * @param status how it ended (or that it is still running)
 * @param triggerTimestamp when it was triggered, epoch millis
 * @param endToEndDurationMillis from trigger to completion or abort; -1 while in progress
 * @param unaligned true when any subtask took it unaligned
 * @param subtasks what each acknowledging subtask reported
 * @param externalPath for a completed checkpoint, where it lives: the URI of its {@code chk-<n>}
 *     directory, which {@code execution.state-recovery.path} accepts to resume from it (with
 *     JobManager storage a name that only the running job knows); null otherwise
 * @param savepoint true for a savepoint (triggered by a user, or a stop's)
 * @param failureMessage for a failed one, why it was aborted; null otherwise
 */
public record CheckpointStatistics(
    long checkpointId,
    Status status,
    long triggerTimestamp,
    long endToEndDurationMillis,
    boolean unaligned,
    List<SubtaskCheckpointStatistics> subtasks,
    String externalPath,
    boolean savepoint,
    String failureMessage) {

  public CheckpointStatistics {
    subtasks = List.copyOf(subtasks);
  }

  /** Statistics of a checkpoint (not a savepoint) that did not fail. */
  public CheckpointStatistics(
      long checkpointId,
      Status status,
      long triggerTimestamp,
      long endToEndDurationMillis,
      boolean unaligned,
      List<SubtaskCheckpointStatistics> subtasks,
      String externalPath) {
    this(
        checkpointId,
        status,
        triggerTimestamp,
        endToEndDurationMillis,
        unaligned,
        subtasks,
        externalPath,
        false,
        null);
  }

  /** Statistics of a checkpoint that has no external path (yet). */
  public CheckpointStatistics(
      long checkpointId,
      Status status,
      long triggerTimestamp,
      long endToEndDurationMillis,
      boolean unaligned,
      List<SubtaskCheckpointStatistics> subtasks) {
    this(checkpointId, status, triggerTimestamp, endToEndDurationMillis, unaligned, subtasks, null);
  }

  /** Where a checkpoint stands. */
  public enum Status {
    /** Triggered, not every subtask acknowledged yet. */
    IN_PROGRESS,
    /** Every subtask acknowledged and the metadata was written. */
    COMPLETED,
    /** Aborted: timed out, declined, subsumed or the job stopped. */
    FAILED
  }

  /** In-flight bytes persisted by all subtasks (unaligned checkpoints). */
  public long channelStateBytes() {
    long total = 0;
    for (SubtaskCheckpointStatistics s : subtasks) {
      total += s.channelStateBytes();
    }
    return total;
  }

  /**
   * Bytes of state this checkpoint refers to, including files shared with earlier incremental
   * checkpoints (Flink's "full checkpoint data size").
   */
  public long stateSizeBytes() {
    long total = 0;
    for (SubtaskCheckpointStatistics s : subtasks) {
      total += s.stateSizeBytes();
    }
    return total;
  }

  /**
   * Bytes this checkpoint wrote (uploaded): equal to {@link #stateSizeBytes()} for a full
   * checkpoint, only the new files for an incremental one (Flink's "checkpointed data size").
   */
  public long checkpointedSizeBytes() {
    long total = 0;
    for (SubtaskCheckpointStatistics s : subtasks) {
      total += s.checkpointedSizeBytes();
    }
    return total;
  }

  /** The longest alignment of any subtask, in milliseconds. */
  public long maxAlignmentDurationMillis() {
    long max = 0;
    for (SubtaskCheckpointStatistics s : subtasks) {
      max = Math.max(max, s.alignmentDurationMillis());
    }
    return max;
  }

  /**
   * One subtask's part of a checkpoint.
   *
   * @param taskName the task, e.g. {@code "Keyed Process -> Sink"}
   * @param subtaskIndex 0-based subtask index
   * @param startDelayMillis from trigger to the first barrier reaching this subtask (sources: to
   *     the trigger being run)
   * @param alignmentDurationMillis from the first to the last barrier at this subtask
   * @param unaligned whether this subtask took the checkpoint unaligned
   * @param channelStateBytes in-flight bytes this subtask persisted
   * @param syncDurationMillis the synchronous part, on the task thread
   * @param asyncDurationMillis the asynchronous part (upload)
   * @param stateSizeBytes bytes of state the subtask's snapshot refers to, shared files included
   * @param checkpointedSizeBytes bytes the subtask wrote for this checkpoint
   */
  public record SubtaskCheckpointStatistics(
      String taskName,
      int subtaskIndex,
      long startDelayMillis,
      long alignmentDurationMillis,
      boolean unaligned,
      long channelStateBytes,
      long syncDurationMillis,
      long asyncDurationMillis,
      long stateSizeBytes,
      long checkpointedSizeBytes) {}
}

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
   * The subtask and phase that set this checkpoint's end-to-end duration: the subtask whose
   * acknowledgement arrived last, and the longest of its phases — or, when writing the checkpoint's
   * metadata took longer than every subtask, {@link Phase#FINALIZE}; or, when a sink subtask's
   * commit after the completion took longer than all of that, {@link Phase#COMMIT} of that subtask
   * (its records became visible last). Null while no subtask acknowledged with its measurements.
   */
  public CriticalPath criticalPath() {
    SubtaskCheckpointStatistics last = null;
    for (SubtaskCheckpointStatistics s : subtasks) {
      if (s.ackTimestamp() >= 0 && (last == null || s.ackTimestamp() > last.ackTimestamp())) {
        last = s;
      }
    }
    if (last == null) {
      return null;
    }
    long untilAck = Math.max(0, last.ackTimestamp() - triggerTimestamp);
    long acknowledgement =
        Math.max(
            0,
            untilAck
                - last.startDelayMillis()
                - last.alignmentDurationMillis()
                - last.syncDurationMillis()
                - last.asyncDurationMillis());
    Phase phase = Phase.START_DELAY;
    long longest = last.startDelayMillis();
    long[] durations = {
      last.alignmentDurationMillis(),
      last.syncDurationMillis(),
      last.asyncDurationMillis(),
      acknowledgement,
      status == Status.COMPLETED ? Math.max(0, endToEndDurationMillis - untilAck) : -1
    };
    Phase[] phases = {
      Phase.ALIGNMENT, Phase.SYNC, Phase.ASYNC, Phase.ACKNOWLEDGEMENT, Phase.FINALIZE
    };
    for (int i = 0; i < durations.length; i++) {
      if (durations[i] > longest) {
        longest = durations[i];
        phase = phases[i];
      }
    }
    // A sink's commit comes after the checkpoint completed: it does not lengthen the checkpoint,
    // but the records it commits become visible only then, so a commit longer than every phase
    // before it is what to look at.
    SubtaskCheckpointStatistics slowestCommit = null;
    for (SubtaskCheckpointStatistics s : subtasks) {
      if (s.commit() != null
          && s.commit().durationMillis() > longest
          && (slowestCommit == null
              || s.commit().durationMillis() > slowestCommit.commit().durationMillis())) {
        slowestCommit = s;
      }
    }
    if (slowestCommit != null) {
      last = slowestCommit;
      phase = Phase.COMMIT;
      longest = slowestCommit.commit().durationMillis();
    }
    String subtask = subtaskName(last);
    String description =
        switch (phase) {
          case FINALIZE ->
              "the coordinator writing the metadata took "
                  + seconds(longest)
                  + " after the last acknowledgement, from "
                  + subtask;
          case COMMIT ->
              subtask
                  + ": sink commit "
                  + seconds(longest)
                  + " after the checkpoint completed"
                  + (last.commit().failure() == null
                      ? ""
                      : ", and it failed: " + last.commit().failure());
          case ALIGNMENT ->
              subtask
                  + ": alignment "
                  + seconds(longest)
                  + (last.lastBarrierFrom() == null
                      ? ""
                      : ", waiting on the channel from " + last.lastBarrierFrom());
          default -> subtask + ": " + phase.label + " " + seconds(longest);
        };
    return new CriticalPath(
        last.vertexIndex(), last.taskName(), last.subtaskIndex(), phase, longest, description);
  }

  /**
   * A subtask as a user reads it: {@code "Count (2/4)"}, the parallelism being the highest index of
   * its task here; {@code "Count (all subtasks)"} for a vertex's aggregate.
   */
  public String subtaskName(SubtaskCheckpointStatistics t) {
    if (t.subtaskIndex() < 0) {
      return t.taskName() + " (all subtasks)";
    }
    int parallelism = 0;
    for (SubtaskCheckpointStatistics s : subtasks) {
      if (s.taskName().equals(t.taskName())) {
        parallelism = Math.max(parallelism, s.subtaskIndex() + 1);
      }
    }
    return t.taskName() + " (" + (t.subtaskIndex() + 1) + "/" + parallelism + ")";
  }

  private static String seconds(long millis) {
    return millis < 1000
        ? millis + " ms"
        : String.format(java.util.Locale.ROOT, "%.1f s", millis / 1000.0);
  }

  /** A phase of one subtask's part of a checkpoint, as the flight recorder lays them out. */
  public enum Phase {
    /** From the trigger to the first barrier reaching the subtask (sources: the trigger run). */
    START_DELAY(
        "start delay",
        "barriers queue behind records in back-pressured channels: unaligned checkpoints"
            + " (execution.checkpointing.unaligned.enabled) let them overtake, and less buffered"
            + " data (taskmanager.network.memory.buffers-per-channel) shortens the queue"),
    /** From the first barrier to the last, inputs blocked meanwhile. */
    ALIGNMENT(
        "alignment",
        "the subtask waited for the barrier of its slowest input: unaligned checkpoints"
            + " (execution.checkpointing.unaligned.enabled), or"
            + " execution.checkpointing.aligned-checkpoint-timeout, skip the wait; a skewed or"
            + " back-pressured upstream subtask is the cause to look at"),
    /** The synchronous snapshot, on the task thread. */
    SYNC(
        "sync",
        "the synchronous snapshot held the task thread: an operator's snapshotState does"
            + " too much work, or heap state is large (RocksDB state snapshots in constant time)"),
    /** Writing the snapshot to checkpoint storage, off the task thread. */
    ASYNC(
        "async",
        "uploading state took longest: incremental checkpoints"
            + " (execution.checkpointing.incremental) upload only new files; check the checkpoint"
            + " storage's throughput, or give checkpoints a longer interval"),
    /** From the end of the upload until the coordinator received the acknowledgement. */
    ACKNOWLEDGEMENT(
        "acknowledgement",
        "the acknowledgement reached the JobManager late: the JobManager or the network"
            + " between it and the TaskManager is overloaded"),
    /** After the last acknowledgement: the coordinator writing the checkpoint's metadata. */
    FINALIZE(
        "finalize",
        "writing the checkpoint's metadata was slow: check the checkpoint storage"
            + " (execution.checkpointing.dir) and, with high availability, ZooKeeper"),
    /**
     * After the checkpoint completed: a two-phase-commit sink committing its transactions when told
     * of the completion, on the task thread.
     */
    COMMIT(
        "sink commit",
        "a slow sink commit: the external system took long to commit the checkpoint's"
            + " transactions (a Kafka transaction coordinator, a file system's rename); the"
            + " committed records become visible only then, and the subtask processes nothing"
            + " meanwhile. Look at the sink's system; a longer interval commits less often");

    private final String label;
    private final String advice;

    Phase(String label, String advice) {
      this.label = label;
      this.advice = advice;
    }

    /** The phase's name in words, e.g. {@code "start delay"}. */
    public String label() {
      return label;
    }

    /** What shortens the phase, naming the configuration keys that do. */
    public String advice() {
      return advice;
    }
  }

  /**
   * What set a checkpoint's end-to-end duration.
   *
   * @param vertexIndex the job vertex of the subtask that acknowledged last
   * @param taskName its task's name
   * @param subtaskIndex its 0-based index, or -1 for a vertex's aggregate (history kept in storage)
   * @param phase its longest phase
   * @param durationMillis how long that phase took
   * @param description for example {@code "Count (3/4): alignment 1.8 s"}
   */
  public record CriticalPath(
      int vertexIndex,
      String taskName,
      int subtaskIndex,
      Phase phase,
      long durationMillis,
      String description) {

    /** What would shorten it. */
    public String advice() {
      return phase.advice();
    }
  }

  /**
   * A two-phase-commit sink subtask's commit after a checkpoint completed, as the subtask reported
   * it: the flight recorder's segment after the acknowledgement.
   *
   * @param notifiedTimestamp when the completion's notification reached the subtask (its
   *     TaskManager's clock, epoch millis)
   * @param durationMillis how long the subtask's commit took, from the start of its handling of the
   *     notification on the task thread to its end (the wait for the task thread not included)
   * @param failure why the commit failed, which fails the task; null when it succeeded
   */
  public record SinkCommit(long notifiedTimestamp, long durationMillis, String failure) {}

  /**
   * One subtask's part of a checkpoint.
   *
   * @param taskName the task, e.g. {@code "Keyed Process -> Sink"}
   * @param subtaskIndex 0-based subtask index; -1 for the aggregate of all a vertex's subtasks,
   *     which the history kept in storage holds for older checkpoints
   * @param startDelayMillis from trigger to the first barrier reaching this subtask (sources: to
   *     the trigger being run)
   * @param alignmentDurationMillis from the first to the last barrier at this subtask
   * @param unaligned whether this subtask took the checkpoint unaligned
   * @param channelStateBytes in-flight bytes this subtask persisted
   * @param syncDurationMillis the synchronous part, on the task thread
   * @param asyncDurationMillis the asynchronous part (upload)
   * @param stateSizeBytes bytes of state the subtask's snapshot refers to, shared files included
   * @param checkpointedSizeBytes bytes the subtask wrote for this checkpoint
   * @param vertexIndex the subtask's job vertex, -1 while the coordinator has not received it
   * @param ackTimestamp when the coordinator received the acknowledgement (its clock, epoch
   *     millis), -1 while it has not
   * @param filesWritten files the subtask's upload wrote to checkpoint storage for this checkpoint
   *     (files earlier incremental checkpoints uploaded and state inline in the metadata not
   *     counted); -1 when not known (history written before Weir counted them)
   * @param commit its sink's commit after the checkpoint completed; null for a subtask without a
   *     two-phase-commit sink, and until it reported one
   * @param lastBarrierFrom the upstream subtask whose barrier arrived last, ending the alignment
   *     (e.g. {@code "Source (1/2)"}): the channel the subtask waited on; null for a source, an
   *     unaligned barrier, or when not known (history written before Weir kept it)
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
      long checkpointedSizeBytes,
      int vertexIndex,
      long ackTimestamp,
      int filesWritten,
      SinkCommit commit,
      String lastBarrierFrom) {

    /** What a subtask measured, before the coordinator received it; files not counted. */
    public SubtaskCheckpointStatistics(
        String taskName,
        int subtaskIndex,
        long startDelayMillis,
        long alignmentDurationMillis,
        boolean unaligned,
        long channelStateBytes,
        long syncDurationMillis,
        long asyncDurationMillis,
        long stateSizeBytes,
        long checkpointedSizeBytes) {
      this(
          taskName,
          subtaskIndex,
          startDelayMillis,
          alignmentDurationMillis,
          unaligned,
          channelStateBytes,
          syncDurationMillis,
          asyncDurationMillis,
          stateSizeBytes,
          checkpointedSizeBytes,
          -1,
          -1);
    }

    /** As the coordinator received it, files not counted and no commit. */
    public SubtaskCheckpointStatistics(
        String taskName,
        int subtaskIndex,
        long startDelayMillis,
        long alignmentDurationMillis,
        boolean unaligned,
        long channelStateBytes,
        long syncDurationMillis,
        long asyncDurationMillis,
        long stateSizeBytes,
        long checkpointedSizeBytes,
        int vertexIndex,
        long ackTimestamp) {
      this(
          taskName,
          subtaskIndex,
          startDelayMillis,
          alignmentDurationMillis,
          unaligned,
          channelStateBytes,
          syncDurationMillis,
          asyncDurationMillis,
          stateSizeBytes,
          checkpointedSizeBytes,
          vertexIndex,
          ackTimestamp,
          -1,
          null,
          null);
    }

    /** The same, as the coordinator received it from vertex {@code vertex} at {@code at}. */
    public SubtaskCheckpointStatistics received(int vertex, long at) {
      return with(vertex, at, filesWritten, commit, lastBarrierFrom);
    }

    /** The same with {@code filesWritten} files uploaded. */
    public SubtaskCheckpointStatistics withFilesWritten(int files) {
      return with(vertexIndex, ackTimestamp, files, commit, lastBarrierFrom);
    }

    /** The same with the sink's commit after the checkpoint completed. */
    public SubtaskCheckpointStatistics withCommit(SinkCommit sinkCommit) {
      return with(vertexIndex, ackTimestamp, filesWritten, sinkCommit, lastBarrierFrom);
    }

    /** The same, its alignment ended by the barrier from {@code upstream} (null: not known). */
    public SubtaskCheckpointStatistics withLastBarrierFrom(String upstream) {
      return with(vertexIndex, ackTimestamp, filesWritten, commit, upstream);
    }

    /** The same measurements with what the coordinator and the subtask add to them later. */
    private SubtaskCheckpointStatistics with(
        int vertex, long at, int files, SinkCommit sinkCommit, String upstream) {
      return new SubtaskCheckpointStatistics(
          taskName,
          subtaskIndex,
          startDelayMillis,
          alignmentDurationMillis,
          unaligned,
          channelStateBytes,
          syncDurationMillis,
          asyncDurationMillis,
          stateSizeBytes,
          checkpointedSizeBytes,
          vertex,
          at,
          files,
          sinkCommit,
          upstream);
    }

    /** From the checkpoint's trigger to the acknowledgement's arrival; -1 before it arrived. */
    public long endToEndDurationMillis(long triggerTimestamp) {
      return ackTimestamp < 0 ? -1 : Math.max(0, ackTimestamp - triggerTimestamp);
    }
  }
}

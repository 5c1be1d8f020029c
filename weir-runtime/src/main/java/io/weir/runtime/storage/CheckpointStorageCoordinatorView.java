package io.weir.runtime.storage;

import io.weir.runtime.checkpoint.CheckpointHistory;
import io.weir.runtime.checkpoint.CompletedCheckpoint;
import java.io.IOException;
import java.util.List;
import java.util.Set;

/**
 * A job's checkpoint storage as its checkpoint coordinator sees it (Flink's {@code
 * CheckpointStorageCoordinatorView}): commit the metadata of a completed checkpoint, discard what
 * is no longer retained, and list what is retained. Tasks never call these.
 */
public interface CheckpointStorageCoordinatorView {

  /** Writes the metadata of a completed checkpoint atomically; returns its external pointer. */
  String commitCheckpoint(CompletedCheckpoint checkpoint) throws IOException;

  /**
   * The external pointer checkpoint {@code checkpointId} of this job has once committed (its
   * directory's URI), which a completed-checkpoint store on ZooKeeper records.
   *
   * @throws UnsupportedOperationException where checkpoints have no files (the job manager's
   *     memory)
   */
  default String externalPointer(long checkpointId) {
    throw new UnsupportedOperationException(
        "Checkpoints kept in the JobManager's memory have no external pointer: give the job a"
            + " checkpoint directory (execution.checkpointing.dir)");
  }

  /**
   * Writes the flight recorder's history beside the metadata of the completed checkpoint or
   * savepoint at {@code pointer} (see {@link CheckpointHistoryFormat}); does nothing where it has
   * no directory (the job manager's memory).
   */
  default void writeHistory(String pointer, CheckpointHistory history) throws IOException {}

  /**
   * The history beside the checkpoint or savepoint at {@code pointer}, or {@link
   * CheckpointHistory#EMPTY} where there is none.
   */
  default CheckpointHistory readHistory(String pointer) throws IOException {
    return CheckpointHistory.EMPTY;
  }

  /** Deletes the files of a checkpoint that is no longer retained (or was aborted). */
  void discardCheckpoint(long checkpointId) throws IOException;

  /** Deletes a shared file that no retained checkpoint refers to any more. */
  default void discardSharedState(StreamStateHandle handle) throws IOException {}

  /**
   * Deletes the shared files that checkpoints up to {@code upToCheckpointId} uploaded and that are
   * not in {@code referenced} (relative paths): uploads of aborted checkpoints and of tasks that
   * failed in the middle.
   */
  default void discardUnreferencedSharedState(Set<String> referenced, long upToCheckpointId)
      throws IOException {}

  /**
   * Deletes what in this job's storage no completed checkpoint references: files of aborted or
   * failed checkpoints and orphaned shared files, never a file of a checkpoint newer than the
   * newest completed one (it may be in progress). Does nothing where storage holds no files.
   */
  default void discardOrphanedState() throws IOException {
    discardOrphanedState(false);
  }

  /**
   * As {@link #discardOrphanedState()}; with {@code nothingInProgress} (the job has ended and no
   * task writes any more) the files of checkpoints newer than the newest completed one go too.
   */
  default void discardOrphanedState(boolean nothingInProgress) throws IOException {}

  /**
   * Names a new savepoint directory of job {@code jobId} below {@code directory} (Flink's {@code
   * initializeLocationForSavepoint}), without touching the file system: the tasks write their state
   * into it ({@link CheckpointStorageWorkerView#location}), {@link #commitSavepoint} its metadata.
   *
   * @return the location's URI, which {@code execution.state-recovery.path} accepts once committed
   * @throws IllegalArgumentException if {@code directory}'s scheme has no file system here
   */
  String initializeSavepointLocation(String jobId, String directory);

  /**
   * Writes the metadata of {@code savepoint}, whose tasks wrote their state into {@code location},
   * last; returns the savepoint's URI (see {@link Savepoints#write}).
   */
  String commitSavepoint(CompletedCheckpoint savepoint, String location) throws IOException;

  /** Deletes the location of a savepoint that did not complete (see {@link Savepoints#discard}). */
  void discardSavepoint(String location) throws IOException;

  /**
   * The completed checkpoints found in storage, newest first, each verified; a corrupt or
   * unreadable one is reported through {@code problems} and skipped.
   */
  List<CompletedCheckpoint> loadRetained(List<String> problems) throws IOException;
}

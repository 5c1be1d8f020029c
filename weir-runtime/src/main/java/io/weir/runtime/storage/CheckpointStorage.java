package io.weir.runtime.storage;

import io.weir.runtime.checkpoint.CompletedCheckpoint;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.Set;

/**
 * Where a job's checkpoints live: state written by tasks during a checkpoint, and the metadata the
 * coordinator writes when the checkpoint completes. Implementations: in the coordinator's memory
 * ({@code jobmanager}) and a file system ({@code filesystem}).
 *
 * <p>Thread-safe: tasks write state from their asynchronous snapshot threads while the coordinator
 * writes metadata.
 */
public interface CheckpointStorage {

  /**
   * Stores the state bytes of one operator subtask for checkpoint {@code checkpointId}; small state
   * may come back inline. {@code description} names the operator and state for errors.
   */
  StreamStateHandle writeState(long checkpointId, byte[] data, String description)
      throws IOException;

  /**
   * Where the tasks write the state of checkpoint {@code checkpointId} (Flink's {@code
   * CheckpointStorageLocation}): this storage when {@code targetLocation} is null, else the
   * savepoint directory it names, which the coordinator chose when it triggered the savepoint. The
   * handles written there name files {@code chk-<n>/<name>} relative to that directory, so the
   * savepoint holds its state itself and can be moved (see {@link Savepoints}).
   *
   * @throws IOException if the location's file system is not available here
   */
  default CheckpointStorage location(long checkpointId, String targetLocation) throws IOException {
    return targetLocation == null
        ? this
        : FileSystemCheckpointStorage.savepointTarget(
            targetLocation, checkpointId, savepointInlineThresholdBytes());
  }

  /**
   * State of at most this many bytes stays inline in a savepoint's metadata: the storage's own
   * threshold, or {@code execution.checkpointing.data-inline-threshold}'s default where state has
   * no files (the job manager's memory).
   */
  default int savepointInlineThresholdBytes() {
    return CheckpointStorages.DEFAULT_INLINE_THRESHOLD_BYTES;
  }

  /** Reads and checksum-verifies the bytes behind a handle. */
  byte[] readState(StreamStateHandle handle) throws IOException;

  /**
   * Stores an immutable local file that later checkpoints may refer to as well (an SST file of an
   * incremental checkpoint). The file lives until {@link #discardSharedState} deletes it, not with
   * checkpoint {@code checkpointId}. This default keeps the bytes like any other state.
   */
  default StreamStateHandle writeSharedFile(long checkpointId, Path file, String description)
      throws IOException {
    return writeState(checkpointId, Files.readAllBytes(file), description);
  }

  /**
   * Stores an immutable local file as state of checkpoint {@code checkpointId} alone (an SST file
   * of a native full checkpoint): it goes when that checkpoint goes. This default keeps the bytes
   * like any other state.
   */
  default StreamStateHandle writeFile(long checkpointId, Path file, String description)
      throws IOException {
    return writeState(checkpointId, Files.readAllBytes(file), description);
  }

  /** Writes the bytes of one piece of state to a stream. */
  @FunctionalInterface
  interface StateWriter {
    void writeTo(OutputStream out) throws IOException;
  }

  /**
   * Stores state that {@code writer} produces as a stream, for state too large to hold in memory as
   * one array (a full RocksDB snapshot): the file-system storage streams it straight into its file.
   * This default collects the bytes and stores them like {@link #writeState}.
   */
  default StreamStateHandle writeState(long checkpointId, String description, StateWriter writer)
      throws IOException {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream(64 * 1024);
    writer.writeTo(bytes);
    return writeState(checkpointId, bytes.toByteArray(), description);
  }

  /**
   * Copies the bytes behind {@code handle} into the new file {@code target}, verifying size and
   * checksum on the way.
   *
   * @throws IOException naming the state file if it is missing or corrupt
   */
  default void readStateToFile(StreamStateHandle handle, Path target) throws IOException {
    Files.write(target, readState(handle), StandardOpenOption.CREATE_NEW);
  }

  /**
   * Checks that the bytes behind {@code handle} are there and match the size and checksum it
   * records, without keeping them: how a restore verifies files before any task reads them.
   *
   * @throws IOException naming the state file if it is missing or corrupt
   */
  default void verifyState(StreamStateHandle handle) throws IOException {
    readState(handle);
  }

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
   * newest completed one (it may be in progress). Does nothing where storage holds no files, and on
   * a storage that only reads a checkpoint a job resumed from.
   */
  default void discardOrphanedState() throws IOException {
    discardOrphanedState(false);
  }

  /**
   * As {@link #discardOrphanedState()}; with {@code nothingInProgress} (the job has ended and no
   * task writes any more) the files of checkpoints newer than the newest completed one go too.
   */
  default void discardOrphanedState(boolean nothingInProgress) throws IOException {}

  /** Writes the metadata of a completed checkpoint atomically; returns its external pointer. */
  String commitCheckpoint(CompletedCheckpoint checkpoint) throws IOException;

  /** Deletes the files of a checkpoint that is no longer retained (or was aborted). */
  void discardCheckpoint(long checkpointId) throws IOException;

  /**
   * The completed checkpoints found in storage, newest first, each verified; a corrupt or
   * unreadable one is reported through {@code problems} and skipped.
   */
  List<CompletedCheckpoint> loadRetained(List<String> problems) throws IOException;
}

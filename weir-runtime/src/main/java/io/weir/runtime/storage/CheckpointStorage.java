package io.weir.runtime.storage;

import io.weir.runtime.checkpoint.CompletedCheckpoint;
import java.io.IOException;
import java.util.List;

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

  /** Reads and checksum-verifies the bytes behind a handle. */
  byte[] readState(StreamStateHandle handle) throws IOException;

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

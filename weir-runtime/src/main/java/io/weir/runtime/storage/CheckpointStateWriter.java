package io.weir.runtime.storage;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Where the tasks write the state of a checkpoint (Flink's {@code CheckpointStreamFactory} with its
 * storage location): the job's checkpoint storage, or the directory of one savepoint. Each write
 * returns the handle the checkpoint's metadata records.
 *
 * <p>Thread-safe: tasks write from their asynchronous snapshot threads.
 */
public interface CheckpointStateWriter {

  /**
   * Stores the state bytes of one operator subtask for checkpoint {@code checkpointId}; small state
   * may come back inline. {@code description} names the operator and state for errors.
   */
  StreamStateHandle writeState(long checkpointId, byte[] data, String description)
      throws IOException;

  /** Writes the bytes of one piece of state to a stream. */
  @FunctionalInterface
  interface StateWriter {
    void writeTo(OutputStream out) throws IOException;
  }

  /**
   * Stores state that {@code writer} produces as a stream, for state too large to hold in memory as
   * one array (a full RocksDB snapshot): a file-system location streams it straight into its file.
   * This default collects the bytes and stores them like {@link #writeState}.
   */
  default StreamStateHandle writeState(long checkpointId, String description, StateWriter writer)
      throws IOException {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream(64 * 1024);
    writer.writeTo(bytes);
    return writeState(checkpointId, bytes.toByteArray(), description);
  }

  /**
   * Stores an immutable local file that later checkpoints may refer to as well (an SST file of an
   * incremental checkpoint). The file lives until the coordinator's {@link
   * CheckpointStorageCoordinatorView#discardSharedState} deletes it, not with checkpoint {@code
   * checkpointId}; a location that shares nothing (a savepoint's) stores it as {@link #writeFile}
   * does. This default keeps the bytes like any other state.
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
}

package io.weir.runtime.storage;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * Reads the state behind handles of one checkpoint storage or one checkpoint location: what a task
 * restoring from a checkpoint and the job master verifying one before a restore need, and nothing
 * that writes. Every read verifies the size and checksum its handle records.
 *
 * <p>Thread-safe.
 */
public interface CheckpointStateReader {

  /** Reads and checksum-verifies the bytes behind a handle. */
  byte[] readState(StreamStateHandle handle) throws IOException;

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

  /**
   * How another process reaches the same state: what a JobManager ships to a TaskManager instead of
   * this object, which the TaskManager turns back into a reader with {@link
   * CheckpointStorages#reader}.
   */
  StorageReference reference();
}

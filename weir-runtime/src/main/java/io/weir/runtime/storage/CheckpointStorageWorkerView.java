package io.weir.runtime.storage;

import java.io.IOException;

/**
 * A job's checkpoint storage as its tasks see it (Flink's {@code CheckpointStorageWorkerView}):
 * where to write the state of a checkpoint or savepoint, and how to read state back on a restore.
 * Nothing here commits or deletes a checkpoint; that is the {@link
 * CheckpointStorageCoordinatorView}'s.
 */
public interface CheckpointStorageWorkerView extends CheckpointStateReader {

  /**
   * Where the tasks write the state of checkpoint {@code checkpointId} (Flink's {@code
   * CheckpointStorageLocation}): the job's storage when {@code targetLocation} is null, else the
   * savepoint directory it names, which the coordinator chose when it triggered the savepoint (a
   * {@link SavepointLocation}). A savepoint's handles name files {@code chk-<n>/<name>} relative to
   * that directory, so the savepoint holds its state itself and can be moved (see {@link
   * Savepoints}).
   *
   * @throws IOException if the location's file system is not available here
   */
  CheckpointStateWriter location(long checkpointId, String targetLocation) throws IOException;
}

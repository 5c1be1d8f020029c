package io.weir.runtime.storage;

import io.weir.api.config.Configuration;
import io.weir.runtime.checkpoint.CompletedCheckpoint;
import java.io.IOException;

/**
 * A job's checkpoint storage (Flink's {@code CheckpointStorageAccess}): the {@link
 * CheckpointStorageCoordinatorView} its checkpoint coordinator commits and discards through, and
 * the {@link CheckpointStorageWorkerView} its tasks write and read through; itself the location of
 * every checkpoint that is no savepoint. Implementations: in the coordinator's memory ({@code
 * jobmanager}) and a file system ({@code filesystem}). A checkpoint loaded from a path is a {@link
 * CompletedCheckpointLocation}, a savepoint's directory a {@link SavepointLocation}: neither is a
 * storage.
 *
 * <p>In a cluster each process makes its own from the job's configuration; what crosses between
 * processes is a {@link StorageReference}, never the object.
 *
 * <p>Thread-safe: tasks write state from their asynchronous snapshot threads while the coordinator
 * writes metadata.
 */
public interface CheckpointStorage
    extends CheckpointStorageCoordinatorView, CheckpointStorageWorkerView, CheckpointStateWriter {

  /**
   * The configuration the file systems of this job's savepoint locations are made with: the job's
   * own, so that its S3 or HDFS settings reach them (null: the process's defaults).
   */
  Configuration fileSystemConfiguration();

  /**
   * State of at most this many bytes stays inline in a savepoint's metadata: the storage's own
   * threshold, or {@code execution.checkpointing.data-inline-threshold}'s default where state has
   * no files (the job manager's memory).
   */
  default int savepointInlineThresholdBytes() {
    return CheckpointStorages.DEFAULT_INLINE_THRESHOLD_BYTES;
  }

  @Override
  default CheckpointStateWriter location(long checkpointId, String targetLocation)
      throws IOException {
    return targetLocation == null
        ? this
        : SavepointLocation.of(
            targetLocation,
            checkpointId,
            savepointInlineThresholdBytes(),
            fileSystemConfiguration());
  }

  @Override
  default String initializeSavepointLocation(String jobId, String directory) {
    return Savepoints.newDirectory(jobId, directory, fileSystemConfiguration());
  }

  @Override
  default String commitSavepoint(CompletedCheckpoint savepoint, String location)
      throws IOException {
    return Savepoints.write(savepoint, location, fileSystemConfiguration());
  }

  @Override
  default void discardSavepoint(String location) throws IOException {
    Savepoints.discard(location, fileSystemConfiguration());
  }

  /** The job's own storage: every process makes it from the job's configuration. */
  @Override
  default StorageReference reference() {
    return StorageReference.JOB_STORAGE;
  }
}

/**
 * Checkpoint storage: where the state of a checkpoint and its metadata are written, and where they
 * are found again on recovery. Split by role, as Flink splits it:
 *
 * <ul>
 *   <li>{@link io.weir.runtime.storage.CheckpointStorage}: a job's storage, seen by its checkpoint
 *       coordinator as a {@link io.weir.runtime.storage.CheckpointStorageCoordinatorView} (commit,
 *       discard, retained checkpoints, savepoint locations) and by its tasks as a {@link
 *       io.weir.runtime.storage.CheckpointStorageWorkerView} (where to write a checkpoint's state,
 *       how to read it back). {@link io.weir.runtime.storage.CheckpointStorages#create} picks an
 *       implementation from the {@code execution.checkpointing.*} keys: {@link
 *       io.weir.runtime.storage.JobManagerCheckpointStorage} keeps everything in memory
 *       (development); {@link io.weir.runtime.storage.FileSystemCheckpointStorage} writes {@code
 *       <dir>/<job-id>/chk-<n>/} over a small {@link io.weir.runtime.storage.FileSystem} (local
 *       files here; HDFS and S3 in their own modules).
 *   <li>Locations: a {@link io.weir.runtime.storage.SavepointLocation} is the directory the tasks
 *       write one savepoint's state into; a {@link
 *       io.weir.runtime.storage.CompletedCheckpointLocation} is a checkpoint found at a path,
 *       read-only. Tasks write through a {@link io.weir.runtime.storage.CheckpointStateWriter} and
 *       restore through a {@link io.weir.runtime.storage.CheckpointStateReader}, whichever of these
 *       it is.
 *   <li>Between processes travels a {@link io.weir.runtime.storage.StorageReference} (the job's
 *       storage, or a checkpoint's URI), resolved with the job's configuration by {@link
 *       io.weir.runtime.storage.CheckpointStorages#reader}; never a storage object.
 *   <li>{@link io.weir.runtime.storage.MetadataSerializer} is the versioned, checksummed binary
 *       format of {@code _metadata}.
 * </ul>
 *
 * <p>Recovery after a failure: {@code storage.loadRetained(problems)} gives the job's completed
 * checkpoints newest first; a damaged one is skipped and reported. If reading a state handle then
 * fails its checksum, the caller moves on to the next checkpoint of that list.
 *
 * <p>Resuming from a checkpoint a user names ({@code execution.state-recovery.path}): {@link
 * io.weir.runtime.storage.CompletedCheckpointLocation#load} returns the checkpoint with its
 * location, which reads it where it lives now; the new job checkpoints into the storage made for
 * its own job id.
 */
package io.weir.runtime.storage;

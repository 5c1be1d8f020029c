/**
 * Checkpoint storage: where the state of a checkpoint and its metadata are written, and where they
 * are found again on recovery.
 *
 * <ul>
 *   <li>{@link io.weir.runtime.storage.CheckpointStorage} is the contract; {@link
 *       io.weir.runtime.storage.CheckpointStorages#create} picks an implementation from the {@code
 *       execution.checkpointing.*} keys.
 *   <li>{@link io.weir.runtime.storage.JobManagerCheckpointStorage} keeps everything in memory
 *       (development); {@link io.weir.runtime.storage.FileSystemCheckpointStorage} writes {@code
 *       <dir>/<job-id>/chk-<n>/} over a small {@link io.weir.runtime.storage.FileSystem} (local
 *       files here; HDFS and S3 in their own modules).
 *   <li>{@link io.weir.runtime.storage.MetadataSerializer} is the versioned, checksummed binary
 *       format of {@code _metadata}.
 * </ul>
 *
 * <p>Recovery after a failure: {@code storage.loadRetained(problems)} gives the job's completed
 * checkpoints newest first; a damaged one is skipped and reported. If reading a state handle then
 * fails its checksum, the caller moves on to the next checkpoint of that list.
 *
 * <p>Resuming from a checkpoint a user names ({@code execution.state-recovery.path}): {@link
 * io.weir.runtime.storage.FileSystemCheckpointStorage#loadFromPath} returns the checkpoint with a
 * read-only storage bound to the place it lives now; its state is read through that storage, while
 * the new job checkpoints into the storage made for its own job id.
 */
package io.weir.runtime.storage;

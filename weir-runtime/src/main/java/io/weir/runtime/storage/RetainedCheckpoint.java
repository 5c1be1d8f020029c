package io.weir.runtime.storage;

import io.weir.runtime.checkpoint.CompletedCheckpoint;

/**
 * A completed checkpoint found at a path a user gave (to resume a job from), together with the
 * storage its state handles must be read through. The handles are relative to the directory the
 * checkpoint is in now, so only {@link #storage()} resolves them; the storage of the job that
 * restores writes its own checkpoints elsewhere.
 *
 * @param checkpoint the checkpoint's metadata, verified
 * @param externalPointer where it was found: the URI of its {@code chk-<n>} directory
 * @param storage reads its state: a {@link CompletedCheckpointLocation} for a checkpoint found at a
 *     path, which nothing can write through, so restoring never changes it; the job's own storage
 *     for one of its retained checkpoints
 */
public record RetainedCheckpoint(
    CompletedCheckpoint checkpoint, String externalPointer, CheckpointStateReader storage) {}

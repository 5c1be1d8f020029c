package io.weir.runtime.checkpoint;

/**
 * A stop-with-savepoint that completed: its savepoint's id and path. Its tasks were told to commit
 * the savepoint's side effects, so the job must never again restore a checkpoint older than the
 * savepoint; the completed-checkpoint store records it before any task is told (see {@link
 * CompletedCheckpointStore#stopCompleted}).
 *
 * @param savepointId the savepoint's checkpoint id
 * @param path the savepoint's directory, to resume the job from
 */
public record CompletedStop(long savepointId, String path) {}

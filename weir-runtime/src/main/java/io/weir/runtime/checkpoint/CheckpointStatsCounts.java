package io.weir.runtime.checkpoint;

/**
 * How many checkpoints and savepoints of a job are in progress, completed and failed since its job
 * master started (Flink's {@code CheckpointStatsCounts}); unlike the history, never forgets.
 *
 * @param inProgress triggered, not yet ended
 * @param completed acknowledged by every subtask and recorded
 * @param failed aborted: declined, timed out, subsumed before completing, or ended with the attempt
 */
public record CheckpointStatsCounts(long inProgress, long completed, long failed) {}

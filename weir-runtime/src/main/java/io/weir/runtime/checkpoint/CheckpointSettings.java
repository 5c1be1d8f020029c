package io.weir.runtime.checkpoint;

import io.weir.api.config.CheckpointingOptions;

/**
 * The checkpoint settings the {@link CheckpointCoordinator} follows.
 *
 * @param intervalMillis time between triggers
 * @param timeoutMillis a checkpoint not complete after this is aborted
 * @param minPauseMillis least time between the end of one checkpoint and the next trigger
 * @param maxConcurrent most checkpoints pending at once
 * @param tolerableFailures consecutive failures tolerated; one more fails the job
 * @param numRetained completed checkpoints kept
 * @param historySize checkpoints whose statistics are kept ({@code web.checkpoints.history})
 */
public record CheckpointSettings(
    long intervalMillis,
    long timeoutMillis,
    long minPauseMillis,
    int maxConcurrent,
    int tolerableFailures,
    int numRetained,
    int historySize) {

  /** The settings with the default history size. */
  public CheckpointSettings(
      long intervalMillis,
      long timeoutMillis,
      long minPauseMillis,
      int maxConcurrent,
      int tolerableFailures,
      int numRetained) {
    this(
        intervalMillis,
        timeoutMillis,
        minPauseMillis,
        maxConcurrent,
        tolerableFailures,
        numRetained,
        CheckpointingOptions.CHECKPOINTS_HISTORY_SIZE.defaultValue());
  }
}

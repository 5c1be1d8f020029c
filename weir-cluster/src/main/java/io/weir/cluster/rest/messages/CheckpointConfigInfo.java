package io.weir.cluster.rest.messages;

import com.fasterxml.jackson.annotation.JsonProperty;

/**
 * {@code GET /jobs/:jobid/checkpoints/config}, Flink's fields; durations in milliseconds.
 *
 * @param mode {@code exactly_once} or {@code at_least_once}
 * @param interval between checkpoints; 0 with checkpointing off
 * @param numRetained completed checkpoints kept
 */
public record CheckpointConfigInfo(
    String mode,
    long interval,
    long timeout,
    @JsonProperty("min_pause") long minPause,
    @JsonProperty("max_concurrent") int maxConcurrent,
    Externalization externalization,
    @JsonProperty("state_backend") String stateBackend,
    @JsonProperty("checkpoint_storage") String checkpointStorage,
    @JsonProperty("unaligned_checkpoints") boolean unalignedCheckpoints,
    @JsonProperty("tolerable_failed_checkpoints") int tolerableFailedCheckpoints,
    @JsonProperty("aligned_checkpoint_timeout") long alignedCheckpointTimeout,
    @JsonProperty("num_retained") int numRetained) {

  /** Whether checkpoints outlive the job, and whether a cancel deletes them. */
  public record Externalization(
      boolean enabled, @JsonProperty("delete_on_cancellation") boolean deleteOnCancellation) {}
}

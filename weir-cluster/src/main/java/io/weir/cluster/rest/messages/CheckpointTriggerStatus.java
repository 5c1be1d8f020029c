package io.weir.cluster.rest.messages;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;

/**
 * {@code GET /jobs/:jobid/checkpoints/:triggerid}, Flink's answer for an asynchronous checkpoint:
 * {@code {"status": {"id": "IN_PROGRESS"}}}, or {@code COMPLETED} with {@code
 * operation.checkpointId} or {@code operation.failure-cause}.
 *
 * @param status {@code IN_PROGRESS} or {@code COMPLETED}
 * @param operation once completed: its outcome
 */
public record CheckpointTriggerStatus(
    SavepointStatus.Status status, @JsonInclude(JsonInclude.Include.NON_NULL) Operation operation) {

  /** Still running. */
  public static CheckpointTriggerStatus inProgress() {
    return new CheckpointTriggerStatus(new SavepointStatus.Status("IN_PROGRESS"), null);
  }

  /** Checkpoint {@code checkpointId} completed. */
  public static CheckpointTriggerStatus completed(long checkpointId) {
    return new CheckpointTriggerStatus(
        new SavepointStatus.Status("COMPLETED"), new Operation(checkpointId, null));
  }

  /** It failed, for {@code reason}. */
  public static CheckpointTriggerStatus failed(String className, String reason) {
    return new CheckpointTriggerStatus(
        new SavepointStatus.Status("COMPLETED"),
        new Operation(null, new SavepointStatus.FailureCause(className, reason)));
  }

  /** Whether the checkpoint has ended. */
  public boolean completed() {
    return status != null && "COMPLETED".equals(status.id());
  }

  /**
   * A checkpoint's outcome.
   *
   * @param checkpointId its id, once completed
   * @param failureCause why it failed
   */
  @JsonInclude(JsonInclude.Include.NON_NULL)
  public record Operation(
      Long checkpointId,
      @JsonProperty("failure-cause") SavepointStatus.FailureCause failureCause) {}
}

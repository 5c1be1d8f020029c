package io.weir.cluster.rest.messages;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;

/**
 * {@code GET /jobs/:jobid/savepoints/:triggerid}, Flink's answer for an asynchronous operation:
 * {@code {"status": {"id": "IN_PROGRESS"}}}, or {@code COMPLETED} with {@code operation.location}
 * or {@code operation.failure-cause}.
 *
 * @param status {@code IN_PROGRESS} or {@code COMPLETED}
 * @param operation once completed: its outcome
 */
public record SavepointStatus(
    Status status, @JsonInclude(JsonInclude.Include.NON_NULL) Operation operation) {

  /** Still running. */
  public static SavepointStatus inProgress() {
    return new SavepointStatus(new Status("IN_PROGRESS"), null);
  }

  /** Written to {@code location}. */
  public static SavepointStatus completed(String location) {
    return new SavepointStatus(new Status("COMPLETED"), new Operation(location, null));
  }

  /** Failed with an exception of {@code className}, described by {@code stackTrace}. */
  public static SavepointStatus failed(String className, String stackTrace) {
    return new SavepointStatus(
        new Status("COMPLETED"), new Operation(null, new FailureCause(className, stackTrace)));
  }

  /** Whether the operation has ended. */
  public boolean completed() {
    return status != null && "COMPLETED".equals(status.id());
  }

  /**
   * The operation's queue status.
   *
   * @param id {@code IN_PROGRESS} or {@code COMPLETED}
   */
  public record Status(String id) {}

  /**
   * A completed operation: its location, or why it failed.
   *
   * @param location where the savepoint is
   * @param failureCause why there is none
   */
  @JsonInclude(JsonInclude.Include.NON_NULL)
  public record Operation(
      String location, @JsonProperty("failure-cause") FailureCause failureCause) {}

  /**
   * Why an operation failed.
   *
   * @param className the failure's class
   * @param stackTrace its messages (Weir sends the cause chain's messages, not a trace)
   */
  public record FailureCause(
      @JsonProperty("class") String className, @JsonProperty("stack-trace") String stackTrace) {}
}

package io.weir.runtime.task;

/** Thrown inside a task that was cancelled, to unwind its thread; not a failure. */
public final class CancelTaskException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  public CancelTaskException() {
    this("Task cancelled");
  }

  /** A cancellation for {@code reason}, which the task's end reports. */
  public CancelTaskException(String reason) {
    super(reason, null, false, false);
  }
}

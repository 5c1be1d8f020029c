package io.weir.runtime.task;

/** Thrown inside a task that was cancelled, to unwind its thread; not a failure. */
public final class CancelTaskException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  public CancelTaskException() {
    super("Task cancelled", null, false, false);
  }
}

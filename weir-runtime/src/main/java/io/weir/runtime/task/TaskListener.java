package io.weir.runtime.task;

/** Told, on the task's own thread, when a task reached a terminal state. */
@FunctionalInterface
public interface TaskListener {
  /**
   * @param failure why it ended: the failure of a FAILED task; for a CANCELED one, the reason it
   *     was cancelled for ({@link CancelTaskException}) when the canceller gave one, else null
   */
  void onTerminated(StreamTask task, TaskState state, Throwable failure);
}

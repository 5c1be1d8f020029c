package io.weir.runtime.task;

/** Told, on the task's own thread, when a task reached a terminal state. */
@FunctionalInterface
public interface TaskListener {
  void onTerminated(StreamTask task, TaskState state, Throwable failure);
}

package io.weir.runtime.task;

/** The life of one subtask. */
public enum TaskState {
  /** Wired but its thread has not started. */
  CREATED,
  /** Its thread runs the mailbox loop. */
  RUNNING,
  /** It processed all input and ended normally. */
  FINISHED,
  /** It stopped because it was cancelled. */
  CANCELED,
  /** It stopped with an exception. */
  FAILED
}

package io.weir.runtime.task;

/**
 * A subtask failed. The message names the task, the subtask and, when known, the operator; the
 * cause is the original exception.
 */
public final class TaskFailureException extends Exception {
  private static final long serialVersionUID = 1L;

  private final String taskName;
  private final String operatorName;
  private final int subtaskIndex;

  public TaskFailureException(
      String taskName, String operatorName, int subtaskIndex, int parallelism, Throwable cause) {
    super(
        (operatorName != null ? "Operator '" + operatorName + "' in task '" : "Task '")
            + taskName
            + "' (subtask "
            + (subtaskIndex + 1)
            + " of "
            + parallelism
            + ", index "
            + subtaskIndex
            + ") failed: "
            + cause,
        cause);
    this.taskName = taskName;
    this.operatorName = operatorName;
    this.subtaskIndex = subtaskIndex;
  }

  public String getTaskName() {
    return taskName;
  }

  /** The failing operator, or null if the failure was outside any operator. */
  public String getOperatorName() {
    return operatorName;
  }

  public int getSubtaskIndex() {
    return subtaskIndex;
  }
}

package io.weir.api.functions;

/**
 * Where a function runs.
 *
 * @param taskName the task's name, e.g. {@code "Map -> Filter"}
 * @param indexOfThisSubtask 0-based index of this parallel instance
 * @param numberOfParallelSubtasks the operator's parallelism
 * @param maxNumberOfParallelSubtasks the max parallelism (number of key groups)
 * @param attemptNumber 0 for the first run, incremented on every restart
 */
public record TaskInfo(
    String taskName,
    int indexOfThisSubtask,
    int numberOfParallelSubtasks,
    int maxNumberOfParallelSubtasks,
    int attemptNumber) {

  /** Flink's display form: {@code "Map -> Filter (2/4)#1"}. */
  public String taskNameWithSubtasks() {
    return taskName
        + " ("
        + (indexOfThisSubtask + 1)
        + "/"
        + numberOfParallelSubtasks
        + ")#"
        + attemptNumber;
  }
}

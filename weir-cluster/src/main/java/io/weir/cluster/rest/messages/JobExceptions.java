package io.weir.cluster.rest.messages;

import java.util.List;

/**
 * {@code GET /jobs/:jobid/exceptions}: the failures of a job's tasks, oldest first.
 *
 * @param exceptionHistory the history
 */
public record JobExceptions(ExceptionHistory exceptionHistory) {

  /**
   * The entries, and whether older ones were left out (never, today).
   *
   * @param entries the failures
   * @param truncated whether entries were left out
   */
  public record ExceptionHistory(List<Entry> entries, boolean truncated) {}

  /**
   * One task's failure.
   *
   * @param exceptionName the class of the failure (as raised on its TaskManager)
   * @param message its messages
   * @param timestamp when the JobManager heard of it, epoch millis
   * @param taskName the task and subtask, e.g. {@code Map (2)}
   * @param taskManagerId the TaskManager it ran on, or {@code -}
   */
  public record Entry(
      String exceptionName,
      String message,
      long timestamp,
      String taskName,
      String taskManagerId) {}
}

package io.weir.cluster.rest.messages;

import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * {@code GET /jobs/:jobid/exceptions}, with Flink's fields: the stack trace of the failure that
 * ended the newest failed attempt as {@code root-exception}, every failure in {@code
 * all-exceptions} (Flink's older list) and in {@code exceptionHistory}, newest first. A stack trace
 * holds the whole cause chain with its frames, as raised on the TaskManager that ran the failing
 * task (the user's {@code at com.example...} frames among them).
 *
 * @param rootException the stack trace of the failure that ended the newest failed attempt, or null
 *     when none failed
 * @param timestamp when the JobManager heard of it, epoch millis, or null
 * @param allExceptions every failure, newest first
 * @param truncated whether failures were left out (never, today)
 * @param exceptionHistory the history
 */
public record JobExceptions(
    @JsonProperty("root-exception") String rootException,
    Long timestamp,
    @JsonProperty("all-exceptions") List<LegacyEntry> allExceptions,
    boolean truncated,
    ExceptionHistory exceptionHistory) {

  /** The answer for {@code history}, newest first, whose newest entry is the root exception. */
  public static JobExceptions of(ExceptionHistory history) {
    List<Entry> entries = history.entries() == null ? List.of() : history.entries();
    return of(history, entries.isEmpty() ? null : entries.get(0));
  }

  /**
   * The answer for {@code history}, newest first, with {@code root} (one of its entries, or null)
   * as the root exception: the failure that ended the newest failed attempt.
   */
  public static JobExceptions of(ExceptionHistory history, Entry root) {
    List<Entry> entries = history.entries() == null ? List.of() : history.entries();
    List<LegacyEntry> all = new ArrayList<>();
    for (Entry e : entries) {
      all.add(
          new LegacyEntry(
              e.stacktrace(), e.taskName(), e.location(), e.timestamp(), e.taskManagerId()));
    }
    return new JobExceptions(
        root == null ? null : root.stacktrace(),
        root == null ? null : root.timestamp(),
        all,
        history.truncated(),
        history);
  }

  /**
   * The entries, newest first, and whether older ones were left out (never, today).
   *
   * @param entries the failures
   * @param truncated whether entries were left out
   */
  public record ExceptionHistory(List<Entry> entries, boolean truncated) {}

  /**
   * One task's failure (Flink's {@code exceptionHistory.entries[]}).
   *
   * @param exceptionName the class of the failure (as raised on its TaskManager)
   * @param message its messages, each cause's once (Weir's, beside Flink's fields)
   * @param stacktrace the failure as Java prints it: every cause with its frames
   * @param timestamp when the JobManager heard of it, epoch millis
   * @param taskName the task and subtask, e.g. {@code Map (2)}
   * @param location the TaskManager it ran on, or {@code -} (Flink's deprecated field)
   * @param endpoint the same (Flink's {@code endpoint})
   * @param taskManagerId the TaskManager it ran on, or {@code -}
   * @param failureLabels Flink's failure enrichers' labels: none in Weir
   * @param concurrentExceptions failures of the same restart beside this one: none listed
   */
  public record Entry(
      String exceptionName,
      String message,
      String stacktrace,
      long timestamp,
      String taskName,
      String location,
      String endpoint,
      String taskManagerId,
      Map<String, String> failureLabels,
      List<Entry> concurrentExceptions) {

    /** A failure of {@code taskName} on {@code taskManagerId}. */
    public static Entry of(
        String exceptionName,
        String message,
        String stacktrace,
        long timestamp,
        String taskName,
        String taskManagerId) {
      return new Entry(
          exceptionName,
          message,
          stacktrace,
          timestamp,
          taskName,
          taskManagerId,
          taskManagerId,
          taskManagerId,
          Map.of(),
          List.of());
    }
  }

  /**
   * One failure in Flink's {@code all-exceptions}.
   *
   * @param exception its stack trace
   * @param task the task and subtask
   * @param location the TaskManager it ran on
   * @param timestamp when the JobManager heard of it
   * @param taskManagerId the TaskManager it ran on
   */
  public record LegacyEntry(
      String exception, String task, String location, long timestamp, String taskManagerId) {}
}

package io.weir.cluster.jobmanager;

import io.weir.cluster.rpc.Messages;
import io.weir.runtime.taskexecutor.ExecutionAttemptId;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * A job's exception history, as the REST API shows it ({@code GET /jobs/:jobid/exceptions}): every
 * task that failed, with the stack trace its TaskManager printed, and every attempt that failed as
 * a whole. Kept by the job's {@link ClusterGateway}, which sees every task's end. Any thread.
 */
public final class ExceptionHistory {

  /**
   * One entry of a job's exception history.
   *
   * @param stacktrace the failure as Java prints it, every cause with its frames, as raised on the
   *     TaskManager that ran the task
   * @param attempt the job's attempt the task belonged to: the first failure of an attempt is the
   *     one that ended it, the others followed from it
   */
  public record ExceptionEntry(
      long timestamp,
      String exceptionName,
      String message,
      String stacktrace,
      String taskName,
      String location,
      int attempt) {}

  private final List<ExceptionEntry> exceptions = new ArrayList<>();

  /** Task {@code id} of vertex {@code vertexName}, which ran at {@code location}, failed. */
  void taskFailed(ExecutionAttemptId id, Throwable failure, String vertexName, String location) {
    add(
        new ExceptionEntry(
            System.currentTimeMillis(),
            failure instanceof Messages.RemoteFailure r
                ? r.remoteClass()
                : failure.getClass().getName(),
            failure.getMessage(),
            stackTraceOf(failure),
            vertexName + " (" + (id.subtask() + 1) + ")",
            location,
            id.attempt()));
  }

  /** The job's attempt {@code attempt} failed, for {@code cause}. */
  void attemptFailed(int attempt, Throwable cause) {
    add(
        new ExceptionEntry(
            System.currentTimeMillis(),
            cause.getClass().getName(),
            cause.getMessage(),
            stackTraceOf(cause),
            null,
            null,
            attempt));
  }

  private void add(ExceptionEntry entry) {
    synchronized (exceptions) {
      exceptions.add(entry);
    }
  }

  /** The exception history, newest first (as Flink's). */
  List<ExceptionEntry> newestFirst() {
    synchronized (exceptions) {
      List<ExceptionEntry> newestFirst = new ArrayList<>(exceptions);
      Collections.reverse(newestFirst);
      return newestFirst;
    }
  }

  /**
   * The stack trace of {@code failure}: as its TaskManager printed it when it came from one (the
   * control plane carries it as text), else as this process prints it.
   */
  static String stackTraceOf(Throwable failure) {
    for (Throwable t = failure; t != null; t = t.getCause()) {
      if (t instanceof Messages.RemoteFailure remote
          && remote.remoteTrace() != null
          && !remote.remoteTrace().isEmpty()) {
        return remote.remoteTrace();
      }
    }
    StringWriter trace = new StringWriter();
    failure.printStackTrace(new PrintWriter(trace));
    return trace.toString();
  }
}

package io.weir.runtime.taskexecutor;

import io.weir.api.CheckpointStatistics;
import io.weir.runtime.checkpoint.OperatorSubtaskState;
import io.weir.runtime.jobmaster.JobMasterGateway;
import io.weir.runtime.task.TaskState;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeoutException;
import java.util.function.Predicate;

/**
 * A job master that schedules nothing: it records what task executors report, in the order they
 * report it, and lets a test wait for one report (Flink's {@code TestingJobMasterGateway}). The
 * counterpart of the job master tests' {@code TestingTaskExecutorGateway}: with it a {@link
 * TaskExecutor} runs real subtasks while the test plays the coordinator and the scheduler.
 *
 * <p>Any thread may report; a waiting test thread wakes on every report, never on a clock tick.
 */
final class TestingJobMasterGateway implements JobMasterGateway {

  /** How long {@link #await} waits for a report before it gives up. */
  static final Duration WAIT = Duration.ofSeconds(20);

  /** What a task executor reported. */
  sealed interface Report {
    /** The subtask that reported. */
    ExecutionAttemptId task();
  }

  /** The subtask wrote its snapshot of {@code checkpointId}. */
  record Acknowledged(
      ExecutionAttemptId task,
      long checkpointId,
      Map<String, OperatorSubtaskState> states,
      CheckpointStatistics.SubtaskCheckpointStatistics statistics)
      implements Report {}

  /** The subtask could not take its snapshot of {@code checkpointId}. */
  record Declined(ExecutionAttemptId task, long checkpointId, Throwable cause) implements Report {}

  /** The subtask's input ended and it awaits a final checkpoint; every subtask reports it. */
  record ReachedEndOfInput(ExecutionAttemptId task) implements Report {}

  /** The subtask ended in {@code state}. */
  record Terminated(
      ExecutionAttemptId task, TaskState state, Throwable failure, TaskMetrics metrics)
      implements Report {}

  /** Guarded by {@code this}; waiters are woken on every addition. */
  private final List<Report> reports = new ArrayList<>();

  @Override
  public void acknowledgeCheckpoint(
      ExecutionAttemptId task,
      long checkpointId,
      Map<String, OperatorSubtaskState> states,
      CheckpointStatistics.SubtaskCheckpointStatistics statistics) {
    record(new Acknowledged(task, checkpointId, Map.copyOf(states), statistics));
  }

  @Override
  public void declineCheckpoint(ExecutionAttemptId task, long checkpointId, Throwable cause) {
    record(new Declined(task, checkpointId, cause));
  }

  @Override
  public void reachedEndOfInput(ExecutionAttemptId task) {
    record(new ReachedEndOfInput(task));
  }

  @Override
  public void taskTerminated(
      ExecutionAttemptId task, TaskState state, Throwable failure, TaskMetrics metrics) {
    record(new Terminated(task, state, failure, metrics));
  }

  private synchronized void record(Report report) {
    reports.add(report);
    notifyAll();
  }

  /** Every report so far, oldest first. */
  synchronized List<Report> reports() {
    return List.copyOf(reports);
  }

  /** The reports of one kind so far, oldest first. */
  synchronized <R extends Report> List<R> reports(Class<R> kind) {
    return reports.stream().filter(kind::isInstance).map(kind::cast).toList();
  }

  /**
   * The first report of {@code kind} that {@code which} accepts, once it arrived.
   *
   * @throws TimeoutException naming what was awaited and what arrived instead, after {@link #WAIT}
   */
  synchronized <R extends Report> R await(Class<R> kind, Predicate<? super R> which)
      throws InterruptedException, TimeoutException {
    long deadline = System.nanoTime() + WAIT.toNanos();
    while (true) {
      for (Report report : reports) {
        if (kind.isInstance(report) && which.test(kind.cast(report))) {
          return kind.cast(report);
        }
      }
      long left = deadline - System.nanoTime();
      if (left <= 0) {
        throw new TimeoutException(
            "No " + kind.getSimpleName() + " as awaited within " + WAIT + "; reported: " + reports);
      }
      wait(Math.max(1, left / 1_000_000));
    }
  }

  /** The end of {@code task}, once it reported it. */
  Terminated awaitTermination(ExecutionAttemptId task)
      throws InterruptedException, TimeoutException {
    return await(Terminated.class, r -> r.task().equals(task));
  }

  /** The acknowledgement of {@code checkpointId} by {@code task}, once it arrived. */
  Acknowledged awaitAcknowledgement(ExecutionAttemptId task, long checkpointId)
      throws InterruptedException, TimeoutException {
    return await(
        Acknowledged.class, r -> r.task().equals(task) && r.checkpointId() == checkpointId);
  }

  /** The refusal of {@code checkpointId} by {@code task}, once it arrived. */
  Declined awaitDecline(ExecutionAttemptId task, long checkpointId)
      throws InterruptedException, TimeoutException {
    return await(Declined.class, r -> r.task().equals(task) && r.checkpointId() == checkpointId);
  }

  /** The end of input of source subtask {@code task}, once it reported it. */
  ReachedEndOfInput awaitEndOfInput(ExecutionAttemptId task)
      throws InterruptedException, TimeoutException {
    return await(ReachedEndOfInput.class, r -> r.task().equals(task));
  }
}

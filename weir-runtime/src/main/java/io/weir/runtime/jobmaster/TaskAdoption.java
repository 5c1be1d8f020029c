package io.weir.runtime.jobmaster;

import io.weir.runtime.checkpoint.CheckpointCoordinator;
import io.weir.runtime.checkpoint.CompletedCheckpoint;
import io.weir.runtime.graph.JobGraph;
import io.weir.runtime.graph.JobVertex;
import io.weir.runtime.taskexecutor.ExecutionAttemptId;
import io.weir.runtime.taskexecutor.RunningAttempt;
import io.weir.runtime.taskexecutor.TaskExecutorGateway;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executor;
import java.util.function.BiConsumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The adoption of the subtasks a lost leader left running, by the job master that takes a job over
 * (high availability; job status {@code RECONCILING} while it waits): asks the task executors for
 * them, takes the attempt they offer over as it is and, once every task executor confirmed, hands
 * the job to the checkpoint coordinator without restarting anything. When they cannot all be
 * adopted the attempt fails with an {@link AdoptionFailedException} and the job recovers from its
 * newest checkpoint, which costs no restart of the restart strategy.
 *
 * <p>Decides nothing about the attempt itself: its {@link Scheduler} calls it under the scheduler's
 * lock, and the answers of the task executors go back to the scheduler on the job master's timer
 * thread.
 */
final class TaskAdoption {

  private static final Logger LOG = LoggerFactory.getLogger(TaskAdoption.class);

  /** How the task executors answered the adoption of an attempt. */
  interface Answer {
    /**
     * @param attempt the attempt whose subtasks were to be adopted
     * @param refused null when every task executor confirmed; otherwise why the attempt cannot be
     *     kept
     */
    void answered(int attempt, AdoptionFailedException refused);
  }

  private final String jobId;
  private final JobGraph graph;
  private final CheckpointCoordinator coordinator;
  private final TaskExecutorGateway taskExecutor;
  private final Executor timer;

  TaskAdoption(
      String jobId,
      JobGraph graph,
      CheckpointCoordinator coordinator,
      TaskExecutorGateway taskExecutor,
      Executor timer) {
    this.jobId = jobId;
    this.graph = graph;
    this.coordinator = coordinator;
    this.taskExecutor = taskExecutor;
    this.timer = timer;
  }

  /**
   * Asks the task executors for the subtasks the lost leader left running; {@code offered} hears
   * what they offer, or why they could not be asked, on the timer thread.
   */
  void askForRunning(BiConsumer<RunningAttempt, Throwable> offered) {
    LOG.info(
        "Job '{}' ({}) waits for the subtasks its previous leader left running",
        graph.jobName(),
        jobId);
    var unused =
        taskExecutor
            .runningAttempt(graph, jobId)
            .whenCompleteAsync(offered, timer)
            .exceptionally(
                e -> {
                  LOG.error("Job '{}' could not be taken over", graph.jobName(), e);
                  return null;
                });
  }

  /**
   * Every subtask of the attempt {@code offer} names, to be adopted as the current attempt; empty
   * when nothing runs to adopt, or when the running subtasks cannot be found ({@code error}): then
   * the job recovers from its checkpoints.
   */
  List<ExecutionAttemptId> subtasksToAdopt(RunningAttempt offer, Throwable error) {
    if (error != null) {
      LOG.warn(
          "Job '{}': the subtasks left running cannot be found ({}); it recovers from its"
              + " checkpoints",
          graph.jobName(),
          error.toString());
    }
    if (error != null || offer.isEmpty()) {
      return List.of();
    }
    List<ExecutionAttemptId> all = new ArrayList<>();
    for (JobVertex vertex : graph.vertices()) {
      for (int i = 0; i < vertex.getParallelism(); i++) {
        all.add(new ExecutionAttemptId(jobId, vertex.getIndex(), i, offer.attempt()));
      }
    }
    return List.copyOf(all);
  }

  /**
   * Asks the task executors to hand over {@code subtasks}, the attempt {@code offer} names (now the
   * scheduler's current attempt); {@code answer} hears on the timer thread whether they did, and
   * that the attempt cannot be kept when a subtask no longer runs.
   */
  void adopt(RunningAttempt offer, List<ExecutionAttemptId> subtasks, Answer answer) {
    int attempt = offer.attempt();
    List<ExecutionAttemptId> missing =
        subtasks.stream().filter(t -> !offer.running().contains(t)).toList();
    LOG.info(
        "Job '{}' ({}) adopts attempt {}: {} of its {} subtasks run",
        graph.jobName(),
        jobId,
        attempt,
        subtasks.size() - missing.size(),
        subtasks.size());
    var unused =
        taskExecutor
            .adopt(offer, subtasks)
            .whenCompleteAsync(
                (v, error) -> {
                  if (error == null && missing.isEmpty()) {
                    answer.answered(attempt, null);
                    return;
                  }
                  String why =
                      error != null
                          ? String.valueOf(error.getMessage())
                          : "subtasks " + missing + " no longer run";
                  answer.answered(
                      attempt, new AdoptionFailedException(graph.jobName(), attempt, why));
                },
                timer);
  }

  /**
   * The {@code subtasks} subtasks of attempt {@code attempt} are adopted: the coordinator takes
   * over and the job goes on without a restart.
   */
  void adopted(int attempt, int subtasks) {
    CompletedCheckpoint newest = coordinator.latestCompleted();
    LOG.info(
        "Job '{}' ({}) adopted the {} running subtasks of attempt {}: nothing restarted; the"
            + " newest recorded checkpoint is {}",
        graph.jobName(),
        jobId,
        subtasks,
        attempt,
        newest == null ? "none" : newest.checkpointId());
    coordinator.takeOver();
  }

  /**
   * The subtasks a lost leader left running cannot all be adopted: the job recovers from its newest
   * checkpoint instead, as without adoption.
   */
  static final class AdoptionFailedException extends IllegalStateException {
    private static final long serialVersionUID = 1L;

    AdoptionFailedException(String jobName, int attempt, String why) {
      super(
          "Job '"
              + jobName
              + "' cannot adopt the running subtasks of attempt "
              + attempt
              + " ("
              + why
              + "): it recovers from its newest checkpoint");
    }
  }
}

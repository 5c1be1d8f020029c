package io.weir.runtime.taskexecutor;

import java.util.Set;

/**
 * The subtasks of one attempt of a job that task executors still run after the job master that
 * deployed them was lost (high availability): what they offer to the job master that takes the job
 * over, which adopts them instead of restarting the job.
 *
 * @param attempt the attempt's number; -1 for {@link #NONE}
 * @param running its subtasks reported running
 * @param ended its subtasks reported ended while no job master led
 */
public record RunningAttempt(
    int attempt, Set<ExecutionAttemptId> running, Set<ExecutionAttemptId> ended) {

  /** Nothing of the job runs any more. */
  public static final RunningAttempt NONE = new RunningAttempt(-1, Set.of(), Set.of());

  public RunningAttempt {
    running = Set.copyOf(running);
    ended = Set.copyOf(ended);
  }

  /** Whether no subtask of the job runs. */
  public boolean isEmpty() {
    return running.isEmpty();
  }
}

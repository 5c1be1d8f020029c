package io.weir.runtime.checkpoint;

import io.weir.runtime.checkpoint.CheckpointCoordinator.OperatorInfo;
import io.weir.runtime.checkpoint.CheckpointCoordinator.TaskKey;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * Which subtasks of the current attempt take part in the next checkpoint (Flink's checkpoint plan):
 * every deployed subtask that has not finished. A subtask that finished takes part in none and
 * counts as acknowledged with {@link OperatorSubtaskState#FINISHED} for each of its operators; one
 * that ended its input waits for a checkpoint taken after every subtask had (a final one). It also
 * names subtasks in messages as Flink does. No threads, no clock; the coordinator calls it under
 * its lock.
 */
final class CheckpointPlan {

  private final List<OperatorInfo> operators;
  private final Set<TaskKey> deployed = new HashSet<>();
  private final Set<TaskKey> finished = new HashSet<>();
  private final Set<TaskKey> endedInput = new HashSet<>();

  /** The last checkpoint id issued when each subtask's end of input was known. */
  private final Map<TaskKey, Long> endedInputAfter = new HashMap<>();

  /** A plan for a job of {@code operators}, with no subtask deployed yet. */
  CheckpointPlan(List<OperatorInfo> operators) {
    this.operators = List.copyOf(operators);
  }

  /** The subtasks of a new attempt: none has finished or ended its input. */
  void attemptDeployed(Set<TaskKey> tasks) {
    deployed.clear();
    deployed.addAll(tasks);
    finished.clear();
    endedInput.clear();
    endedInputAfter.clear();
  }

  /**
   * {@code task} ended its input, when checkpoint {@code lastIssued} was the last one triggered;
   * true when it was the last deployed subtask to do so (the next checkpoint is final).
   */
  boolean inputEnded(TaskKey task, long lastIssued) {
    if (!deployed.contains(task) || !endedInput.add(task)) {
      return false;
    }
    endedInputAfter.put(task, lastIssued);
    return endedInput.containsAll(deployed);
  }

  /**
   * Whether {@code task}, which finished, stands in checkpoint {@code checkpointId} as finished:
   * only if that checkpoint was triggered after its input had ended. One triggered before took its
   * snapshot at a barrier among its records, and only its own acknowledgement holds that state.
   */
  boolean finishedBefore(TaskKey task, long checkpointId) {
    Long after = endedInputAfter.get(task);
    return after != null && checkpointId > after;
  }

  /** {@code task} ended after its input: it takes part in no further checkpoint. */
  void taskFinished(TaskKey task) {
    finished.add(task);
  }

  /** The subtasks a checkpoint triggered now waits for; empty when every one has finished. */
  Set<TaskKey> tasksToWaitFor() {
    Set<TaskKey> expected = new HashSet<>(deployed);
    expected.removeAll(finished);
    return expected;
  }

  /** The subtasks that finished in this attempt. */
  Set<TaskKey> finishedTasks() {
    return finished;
  }

  /** What finished subtask {@code task} contributes to a checkpoint: every operator finished. */
  Map<String, OperatorSubtaskState> finishedStates(TaskKey task) {
    Map<String, OperatorSubtaskState> states = new HashMap<>();
    for (OperatorInfo op : operators) {
      if (op.vertex() == task.vertex()) {
        states.put(op.operatorId(), OperatorSubtaskState.FINISHED);
      }
    }
    return states;
  }

  /**
   * Subtasks as Flink names them in messages, {@code 'Keyed Count -> Sink' (2/4)}, each with where
   * it runs when {@code locations} knows it ({@code 'Keyed Count -> Sink' (2/4) on tm-1
   * (127.0.0.1:41234)}), in the job's order; at most ten, then how many more.
   *
   * @param locations where each subtask runs; null for one whose place is not known
   */
  String describe(Collection<TaskKey> tasks, Function<TaskKey, String> locations) {
    List<TaskKey> sorted =
        tasks.stream()
            .sorted(Comparator.comparingInt(TaskKey::vertex).thenComparingInt(TaskKey::subtask))
            .toList();
    StringBuilder text = new StringBuilder();
    for (int i = 0; i < sorted.size() && i < 10; i++) {
      TaskKey task = sorted.get(i);
      List<OperatorInfo> chain =
          operators.stream().filter(o -> o.vertex() == task.vertex()).toList();
      String name =
          chain.isEmpty()
              ? "vertex " + task.vertex()
              : chain.stream().map(OperatorInfo::name).collect(Collectors.joining(" -> "));
      int parallelism = chain.isEmpty() ? 0 : chain.get(0).parallelism();
      text.append(i == 0 ? "" : ", ")
          .append('\'')
          .append(name)
          .append("' (")
          .append(task.subtask() + 1)
          .append('/')
          .append(parallelism)
          .append(')');
      String location = locations.apply(task);
      if (location != null) {
        text.append(" on ").append(location);
      }
    }
    if (sorted.size() > 10) {
      text.append(" and ").append(sorted.size() - 10).append(" more");
    }
    return text.toString();
  }
}

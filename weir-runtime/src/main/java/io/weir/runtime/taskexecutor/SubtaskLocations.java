package io.weir.runtime.taskexecutor;

import java.util.List;
import java.util.Map;

/**
 * Where every subtask of one attempt runs, as data addresses, so that a task executor knows which
 * channels are local and where to reach the others. {@link #LOCAL} says every subtask runs in this
 * process (local execution).
 *
 * @param byVertex per job vertex index, the data address of each subtask's process
 */
public record SubtaskLocations(Map<Integer, List<String>> byVertex) {

  /** Every subtask in one process. */
  public static final SubtaskLocations LOCAL = new SubtaskLocations(Map.of());

  public SubtaskLocations {
    byVertex = Map.copyOf(byVertex);
  }

  /** True when nothing runs elsewhere. */
  public boolean allLocal() {
    return byVertex.isEmpty();
  }

  /** The data address of that subtask's process. */
  public String address(int vertex, int subtask) {
    List<String> subtasks = byVertex.get(vertex);
    if (subtasks == null || subtask >= subtasks.size()) {
      throw new IllegalStateException(
          "No location for subtask " + subtask + " of vertex " + vertex + " in " + byVertex);
    }
    return subtasks.get(subtask);
  }
}

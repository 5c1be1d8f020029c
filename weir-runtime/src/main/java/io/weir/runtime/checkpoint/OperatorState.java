package io.weir.runtime.checkpoint;

import java.util.List;

/**
 * One operator's part of a completed checkpoint.
 *
 * @param operatorId the stable id: the operator's uid, or one derived from the job's shape
 * @param operatorName the name, for messages
 * @param parallelism the parallelism at the time of the checkpoint
 * @param maxParallelism the number of key groups
 * @param subtasks the state of each subtask, by subtask index
 */
public record OperatorState(
    String operatorId,
    String operatorName,
    int parallelism,
    int maxParallelism,
    List<OperatorSubtaskState> subtasks) {

  public OperatorState {
    subtasks = List.copyOf(subtasks);
  }
}

package io.weir.runtime.checkpoint;

import java.util.List;

/**
 * A checkpoint every task acknowledged: what its metadata file holds.
 *
 * @param jobId the job, as 32 hex digits
 * @param checkpointId increasing per job
 * @param timestamp when it was triggered, epoch millis
 * @param savepoint true for a user-triggered savepoint
 * @param operators the state of every operator
 */
public record CompletedCheckpoint(
    String jobId,
    long checkpointId,
    long timestamp,
    boolean savepoint,
    List<OperatorState> operators) {

  public CompletedCheckpoint {
    operators = List.copyOf(operators);
  }

  public OperatorState operator(String operatorId) {
    for (OperatorState op : operators) {
      if (op.operatorId().equals(operatorId)) {
        return op;
      }
    }
    return null;
  }
}

package io.weir.runtime.testing;

import io.weir.runtime.state.KeyGroupRange;
import io.weir.runtime.state.KeyGroupRangeAssignment;

/**
 * How a harness runs its operator.
 *
 * @param maxParallelism the number of key groups
 * @param subtaskIndex the subtask the operator plays
 * @param parallelism the operator's parallelism; the subtask owns its share of the key groups
 * @param failover also run the failover scenarios (checkpoint, run on, crash, restore, replay)
 * @param finalCheckpoint end every run with a checkpoint after {@code finish()}, as the runtime
 *     does at the end of a bounded input when checkpointing is on
 */
record HarnessSettings(
    int maxParallelism,
    int subtaskIndex,
    int parallelism,
    boolean failover,
    boolean finalCheckpoint) {

  static final HarnessSettings DEFAULT =
      new HarnessSettings(KeyGroupRangeAssignment.DEFAULT_MAX_PARALLELISM, 0, 1, true, true);

  HarnessSettings {
    if (parallelism < 1 || parallelism > maxParallelism) {
      throw new IllegalArgumentException(
          "Parallelism "
              + parallelism
              + " must be between 1 and max parallelism "
              + maxParallelism);
    }
    if (subtaskIndex < 0 || subtaskIndex >= parallelism) {
      throw new IllegalArgumentException(
          "Subtask index " + subtaskIndex + " must be between 0 and " + (parallelism - 1));
    }
  }

  KeyGroupRange keyGroupRange() {
    return KeyGroupRangeAssignment.computeKeyGroupRangeForOperatorIndex(
        maxParallelism, parallelism, subtaskIndex);
  }

  HarnessSettings withMaxParallelism(int value) {
    return new HarnessSettings(value, subtaskIndex, parallelism, failover, finalCheckpoint);
  }

  HarnessSettings withSubtask(int index, int of) {
    return new HarnessSettings(maxParallelism, index, of, failover, finalCheckpoint);
  }

  HarnessSettings withFailover(boolean value) {
    return new HarnessSettings(maxParallelism, subtaskIndex, parallelism, value, finalCheckpoint);
  }

  HarnessSettings withFinalCheckpoint(boolean value) {
    return new HarnessSettings(maxParallelism, subtaskIndex, parallelism, failover, value);
  }
}

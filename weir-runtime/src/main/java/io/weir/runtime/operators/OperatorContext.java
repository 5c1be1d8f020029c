package io.weir.runtime.operators;

import io.weir.api.functions.TaskInfo;
import io.weir.runtime.state.DefaultOperatorStateStore;
import io.weir.runtime.state.KeyedStateBackend;
import io.weir.runtime.time.ProcessingTimeService;

/**
 * What the runtime gives one operator of a chain.
 *
 * @param operatorName the operator's name, for errors
 * @param taskInfo where it runs
 * @param userClassLoader to load user classes
 * @param keyedStateBackend its keyed state, or null when the operator is not keyed
 * @param operatorStateStore its operator state
 * @param timeService processing time and timers on the task thread
 * @param operatorId the operator's stable id in checkpoints
 * @param restoredCheckpointId the checkpoint the operator was restored from, or -1
 */
public record OperatorContext(
    String operatorName,
    TaskInfo taskInfo,
    ClassLoader userClassLoader,
    KeyedStateBackend<?> keyedStateBackend,
    DefaultOperatorStateStore operatorStateStore,
    ProcessingTimeService timeService,
    String operatorId,
    long restoredCheckpointId) {

  public boolean isRestored() {
    return restoredCheckpointId >= 0;
  }
}

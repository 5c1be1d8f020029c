package io.weir.runtime.operators;

import io.weir.api.functions.TaskInfo;
import io.weir.api.metrics.OperatorMetricGroup;
import io.weir.runtime.metrics.OperatorMetrics;
import io.weir.runtime.state.DefaultOperatorStateStore;
import io.weir.runtime.state.KeyedStateBackend;
import io.weir.runtime.time.ProcessingTimeService;
import java.util.Map;

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
 * @param globalJobParameters the job's parameters ({@code pipeline.global-job-parameters})
 * @param metricGroup where its functions register their metrics
 */
public record OperatorContext(
    String operatorName,
    TaskInfo taskInfo,
    ClassLoader userClassLoader,
    KeyedStateBackend<?> keyedStateBackend,
    DefaultOperatorStateStore operatorStateStore,
    ProcessingTimeService timeService,
    String operatorId,
    long restoredCheckpointId,
    Map<String, String> globalJobParameters,
    OperatorMetricGroup metricGroup) {

  public OperatorContext {
    globalJobParameters = Map.copyOf(globalJobParameters);
  }

  /** A context whose metrics nobody reports: an operator run outside a task (test harnesses). */
  public OperatorContext(
      String operatorName,
      TaskInfo taskInfo,
      ClassLoader userClassLoader,
      KeyedStateBackend<?> keyedStateBackend,
      DefaultOperatorStateStore operatorStateStore,
      ProcessingTimeService timeService,
      String operatorId,
      long restoredCheckpointId,
      Map<String, String> globalJobParameters) {
    this(
        operatorName,
        taskInfo,
        userClassLoader,
        keyedStateBackend,
        operatorStateStore,
        timeService,
        operatorId,
        restoredCheckpointId,
        globalJobParameters,
        OperatorMetrics.unreported(taskInfo, operatorName, operatorId));
  }

  public boolean isRestored() {
    return restoredCheckpointId >= 0;
  }
}

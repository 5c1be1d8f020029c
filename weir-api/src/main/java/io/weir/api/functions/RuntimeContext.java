package io.weir.api.functions;

import io.weir.api.state.AggregatingState;
import io.weir.api.state.AggregatingStateDescriptor;
import io.weir.api.state.ListState;
import io.weir.api.state.ListStateDescriptor;
import io.weir.api.state.MapState;
import io.weir.api.state.MapStateDescriptor;
import io.weir.api.state.ReducingState;
import io.weir.api.state.ReducingStateDescriptor;
import io.weir.api.state.ValueState;
import io.weir.api.state.ValueStateDescriptor;

/**
 * What a rich function can see of the task it runs in, and its keyed state. Keyed state is
 * available only on a keyed stream and is always scoped to the key of the element being processed.
 */
public interface RuntimeContext {

  TaskInfo getTaskInfo();

  default int getIndexOfThisSubtask() {
    return getTaskInfo().indexOfThisSubtask();
  }

  default int getNumberOfParallelSubtasks() {
    return getTaskInfo().numberOfParallelSubtasks();
  }

  default int getMaxNumberOfParallelSubtasks() {
    return getTaskInfo().maxNumberOfParallelSubtasks();
  }

  default int getAttemptNumber() {
    return getTaskInfo().attemptNumber();
  }

  ClassLoader getUserCodeClassLoader();

  /**
   * The job's parameters ({@code env.getConfig().setGlobalJobParameters(...)}, or {@code
   * pipeline.global-job-parameters}), as Flink 2's; empty when none are set.
   */
  java.util.Map<String, String> getGlobalJobParameters();

  /**
   * The operator's metric group, as Flink's: counters, gauges, meters and histograms registered
   * there are reported by the TaskManager's Prometheus endpoint as {@code
   * weir_taskmanager_job_task_operator_<groups>_<name>} (docs/monitoring.md).
   */
  io.weir.api.metrics.OperatorMetricGroup getMetricGroup();

  <T> ValueState<T> getState(ValueStateDescriptor<T> descriptor);

  <T> ListState<T> getListState(ListStateDescriptor<T> descriptor);

  <K, V> MapState<K, V> getMapState(MapStateDescriptor<K, V> descriptor);

  <T> ReducingState<T> getReducingState(ReducingStateDescriptor<T> descriptor);

  <IN, ACC, OUT> AggregatingState<IN, OUT> getAggregatingState(
      AggregatingStateDescriptor<IN, ACC, OUT> descriptor);
}

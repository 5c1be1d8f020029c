package io.weir.runtime.operators;

import io.weir.api.functions.RuntimeContext;
import io.weir.api.functions.TaskInfo;
import io.weir.api.metrics.OperatorMetricGroup;
import io.weir.api.state.AggregatingState;
import io.weir.api.state.AggregatingStateDescriptor;
import io.weir.api.state.KeyedStateStore;
import io.weir.api.state.ListState;
import io.weir.api.state.ListStateDescriptor;
import io.weir.api.state.MapState;
import io.weir.api.state.MapStateDescriptor;
import io.weir.api.state.ReducingState;
import io.weir.api.state.ReducingStateDescriptor;
import io.weir.api.state.ValueState;
import io.weir.api.state.ValueStateDescriptor;
import java.util.Map;

/** The {@link RuntimeContext} of a function running inside an operator. */
public final class StreamingRuntimeContext implements RuntimeContext {

  private final OperatorContext context;

  public StreamingRuntimeContext(OperatorContext context) {
    this.context = context;
  }

  @Override
  public TaskInfo getTaskInfo() {
    return context.taskInfo();
  }

  @Override
  public ClassLoader getUserCodeClassLoader() {
    return context.userClassLoader();
  }

  @Override
  public Map<String, String> getGlobalJobParameters() {
    return context.globalJobParameters();
  }

  @Override
  public OperatorMetricGroup getMetricGroup() {
    return context.metricGroup();
  }

  KeyedStateStore keyedState() {
    if (context.keyedStateBackend() == null) {
      throw new UnsupportedOperationException(
          "Keyed state is only available on a keyed stream, but operator '"
              + context.operatorName()
              + "' is not keyed. Call keyBy(...) before it, or use operator state through"
              + " CheckpointedFunction.");
    }
    return context.keyedStateBackend();
  }

  @Override
  public <T> ValueState<T> getState(ValueStateDescriptor<T> descriptor) {
    return keyedState().getState(descriptor);
  }

  @Override
  public <T> ListState<T> getListState(ListStateDescriptor<T> descriptor) {
    return keyedState().getListState(descriptor);
  }

  @Override
  public <K, V> MapState<K, V> getMapState(MapStateDescriptor<K, V> descriptor) {
    return keyedState().getMapState(descriptor);
  }

  @Override
  public <T> ReducingState<T> getReducingState(ReducingStateDescriptor<T> descriptor) {
    return keyedState().getReducingState(descriptor);
  }

  @Override
  public <IN, ACC, OUT> AggregatingState<IN, OUT> getAggregatingState(
      AggregatingStateDescriptor<IN, ACC, OUT> descriptor) {
    return keyedState().getAggregatingState(descriptor);
  }
}

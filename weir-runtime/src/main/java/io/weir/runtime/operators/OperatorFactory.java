package io.weir.runtime.operators;

import io.weir.api.functions.KeySelector;
import io.weir.api.graph.KeyContext;
import io.weir.api.graph.Operation;
import io.weir.api.typeutils.TypeSerializer;
import io.weir.runtime.graph.UserCode;

/** Creates the runtime operator for an {@link Operation} of the plan. */
public final class OperatorFactory {

  private OperatorFactory() {}

  /**
   * A fresh operator.
   *
   * @param key1 the (first) input's key context, null if not keyed
   * @param key2 the second input's key context, null if not keyed or one input
   * @param outputSerializer the serializer of the operator's output, for stateful operators
   */
  @SuppressWarnings({"unchecked", "rawtypes"})
  public static StreamOperator<?> create(
      String operatorName,
      Operation operation,
      KeyContext<?, ?> key1,
      KeyContext<?, ?> key2,
      TypeSerializer<?> outputSerializer) {
    // Each subtask runs its own copy of the user code: functions keep per-subtask fields.
    operation = copy(operation, operatorName);
    if (operation instanceof Operation.Map m) {
      return new SimpleOperators.Map(m.function());
    } else if (operation instanceof Operation.FlatMap f) {
      return new SimpleOperators.FlatMap(f.function());
    } else if (operation instanceof Operation.Filter f) {
      return new SimpleOperators.Filter(f.function());
    } else if (operation instanceof Operation.Process p) {
      return new ProcessOperators.Process(p.function());
    } else if (operation instanceof Operation.KeyedProcess p) {
      return new ProcessOperators.KeyedProcess(p.function());
    } else if (operation instanceof Operation.Reduce r) {
      return new ProcessOperators.Reduce(r.function(), outputSerializer);
    } else if (operation instanceof Operation.CoProcess c) {
      return new ProcessOperators.CoProcess(c.function());
    } else if (operation instanceof Operation.KeyedCoProcess c) {
      return new ProcessOperators.KeyedCoProcess(c.function(), selector(key1), selector(key2));
    } else if (operation instanceof Operation.AssignTimestamps a) {
      return new TimestampsAndWatermarksOperator(a.strategy(), a.autoWatermarkIntervalMillis());
    } else if (operation instanceof Operation.Window w) {
      if (key1 == null) {
        throw new IllegalArgumentException(
            "Window operator '" + operatorName + "' needs a keyed input: call keyBy(...).window");
      }
      return new io.weir.runtime.operators.windowing.WindowOperator(
          w.definition(), w.inputType(), w.accumulatorType());
    } else if (operation instanceof Operation.IntervalJoin j) {
      if (key1 == null || key2 == null) {
        throw new IllegalArgumentException(
            "Interval join '" + operatorName + "' needs both inputs keyed: call keyBy on both");
      }
      return new IntervalJoinOperator(
          j.definition(), selector(key1), selector(key2), j.leftType(), j.rightType());
    } else if (operation instanceof Operation.SinkFn s) {
      return new SimpleOperators.SinkFn(s.function());
    } else if (operation instanceof Operation.SinkTo s) {
      return new SimpleOperators.SinkTo(s.sink());
    }
    throw new IllegalArgumentException("Unknown operation " + operation);
  }

  private static KeySelector<?, ?> selector(KeyContext<?, ?> keyContext) {
    if (keyContext == null) {
      throw new IllegalArgumentException("A keyed operation needs a keyed input: call keyBy");
    }
    return UserCode.copy(keyContext.selector(), "key selector");
  }

  @SuppressWarnings({"unchecked", "rawtypes"})
  private static Operation copy(Operation operation, String name) {
    Object copy = UserCode.copy(operation.userObject(), name);
    if (operation instanceof Operation.Map) {
      return new Operation.Map((io.weir.api.functions.MapFunction) copy);
    } else if (operation instanceof Operation.FlatMap) {
      return new Operation.FlatMap((io.weir.api.functions.FlatMapFunction) copy);
    } else if (operation instanceof Operation.Filter) {
      return new Operation.Filter((io.weir.api.functions.FilterFunction) copy);
    } else if (operation instanceof Operation.Process) {
      return new Operation.Process((io.weir.api.functions.ProcessFunction) copy);
    } else if (operation instanceof Operation.KeyedProcess) {
      return new Operation.KeyedProcess((io.weir.api.functions.KeyedProcessFunction) copy);
    } else if (operation instanceof Operation.Reduce) {
      return new Operation.Reduce((io.weir.api.functions.ReduceFunction) copy);
    } else if (operation instanceof Operation.CoProcess) {
      return new Operation.CoProcess((io.weir.api.functions.CoProcessFunction) copy);
    } else if (operation instanceof Operation.KeyedCoProcess) {
      return new Operation.KeyedCoProcess((io.weir.api.functions.KeyedCoProcessFunction) copy);
    } else if (operation instanceof Operation.AssignTimestamps a) {
      return new Operation.AssignTimestamps(
          (io.weir.api.eventtime.WatermarkStrategy) copy, a.autoWatermarkIntervalMillis());
    } else if (operation instanceof Operation.Window w) {
      return new Operation.Window(
          (io.weir.api.graph.WindowDefinition) copy, w.inputType(), w.accumulatorType());
    } else if (operation instanceof Operation.IntervalJoin) {
      return new Operation.IntervalJoin(
          (io.weir.api.graph.IntervalJoinDefinition) copy,
          ((Operation.IntervalJoin) operation).leftType(),
          ((Operation.IntervalJoin) operation).rightType());
    } else if (operation instanceof Operation.SinkFn) {
      return new Operation.SinkFn((io.weir.api.functions.SinkFunction) copy);
    } else if (operation instanceof Operation.SinkTo) {
      return new Operation.SinkTo((io.weir.api.sink.Sink) copy);
    }
    throw new IllegalArgumentException("Unknown operation " + operation);
  }
}

package io.weir.api;

import io.weir.api.functions.CoProcessFunction;
import io.weir.api.functions.KeySelector;
import io.weir.api.functions.KeyedCoProcessFunction;
import io.weir.api.graph.KeyContext;
import io.weir.api.graph.Operation;
import io.weir.api.graph.Transformation;
import io.weir.api.graph.TwoInputTransformation;
import io.weir.api.typeutils.TypeExtractor;
import io.weir.api.typeutils.TypeInformation;
import java.util.Objects;

/** Two streams, possibly of different types, processed together by one operator. */
public class ConnectedStreams<I1, I2> {

  private final StreamEnvironment environment;
  private final DataStream<I1> first;
  private final DataStream<I2> second;

  ConnectedStreams(StreamEnvironment environment, DataStream<I1> first, DataStream<I2> second) {
    this.environment = environment;
    this.first = first;
    this.second = second;
  }

  public DataStream<I1> getFirstInput() {
    return first;
  }

  public DataStream<I2> getSecondInput() {
    return second;
  }

  /** Keys both inputs so that equal keys meet in one subtask. */
  public <K> ConnectedStreams<I1, I2> keyBy(KeySelector<I1, K> key1, KeySelector<I2, K> key2) {
    return new ConnectedStreams<>(environment, first.keyBy(key1), second.keyBy(key2));
  }

  public <R> SingleOutputStreamOperator<R> process(CoProcessFunction<I1, I2, R> function) {
    Objects.requireNonNull(function, "co-process function");
    if (first.keyContext() != null && second.keyContext() != null) {
      throw new IllegalArgumentException(
          "Both inputs are keyed: use a KeyedCoProcessFunction to get keyed state and timers");
    }
    return create(
        "Co-Process",
        new Operation.CoProcess<>(function),
        TypeExtractor.getOutputType(function, CoProcessFunction.class, 2, "Co-Process"));
  }

  public <K, R> SingleOutputStreamOperator<R> process(
      KeyedCoProcessFunction<K, I1, I2, R> function) {
    Objects.requireNonNull(function, "keyed co-process function");
    if (first.keyContext() == null || second.keyContext() == null) {
      throw new IllegalArgumentException(
          "A KeyedCoProcessFunction needs both inputs keyed: call keyBy on both streams, or"
              + " keyBy(key1, key2) on the connected streams");
    }
    return create(
        "Keyed Co-Process",
        new Operation.KeyedCoProcess<>(function),
        TypeExtractor.getOutputType(function, KeyedCoProcessFunction.class, 3, "Keyed Co-Process"));
  }

  private <R> SingleOutputStreamOperator<R> create(
      String name, Operation operation, TypeInformation<R> outputType) {
    KeyContext<I1, ?> k1 = first.keyContext();
    KeyContext<I2, ?> k2 = second.keyContext();
    Transformation<R> t =
        new TwoInputTransformation<>(
            first.getTransformation(),
            second.getTransformation(),
            name,
            operation,
            outputType,
            Transformation.DEFAULT_PARALLELISM,
            k1,
            k2);
    return new SingleOutputStreamOperator<>(environment, t);
  }
}

package io.weir.api;

import io.weir.api.functions.KeyedProcessFunction;
import io.weir.api.functions.ReduceFunction;
import io.weir.api.graph.KeyContext;
import io.weir.api.graph.Operation;
import io.weir.api.graph.PartitionTransformation;
import io.weir.api.graph.Partitioning;
import io.weir.api.graph.Transformation;
import io.weir.api.typeutils.TypeExtractor;
import io.weir.api.typeutils.TypeInformation;
import java.util.Objects;

/**
 * A stream partitioned by key: operators on it see each key in exactly one subtask and may keep
 * keyed state and timers.
 */
public class KeyedStream<T, K> extends DataStream<T> {

  private final KeyContext<T, K> keyContext;

  KeyedStream(StreamEnvironment environment, Transformation<T> input, KeyContext<T, K> keyContext) {
    super(environment, new PartitionTransformation<>(input, new Partitioning.Hash<>(keyContext)));
    this.keyContext = keyContext;
  }

  public TypeInformation<K> getKeyType() {
    return keyContext.keyType();
  }

  public KeyContext<T, K> getKeyContext() {
    return keyContext;
  }

  @Override
  KeyContext<T, ?> keyContext() {
    return keyContext;
  }

  public <R> SingleOutputStreamOperator<R> process(KeyedProcessFunction<K, T, R> function) {
    Objects.requireNonNull(function, "keyed process function");
    return transform(
        "Keyed Process",
        new Operation.KeyedProcess<>(function),
        TypeExtractor.getOutputType(function, KeyedProcessFunction.class, 2, "Keyed Process"));
  }

  /** Emits, for every element, the running reduction of its key. */
  public SingleOutputStreamOperator<T> reduce(ReduceFunction<T> reducer) {
    Objects.requireNonNull(reducer, "reduce function");
    return transform("Keyed Reduce", new Operation.Reduce<>(reducer), getType());
  }

  /**
   * Emits, for every element, the element with field {@code position} replaced by the running sum
   * of its key. Position 0 on a stream of numbers sums the numbers themselves.
   */
  public SingleOutputStreamOperator<T> sum(int position) {
    return transform(
        "Keyed Aggregation", new Operation.Reduce<>(SumFunction.atPosition(position)), getType());
  }

  /** {@link #sum(int)} for a named field of a record (or a tuple's {@code f0..f4}). */
  public SingleOutputStreamOperator<T> sum(String field) {
    return transform(
        "Keyed Aggregation", new Operation.Reduce<>(SumFunction.ofField(field)), getType());
  }

  /** Pairs two keyed streams with the same key type for a {@code KeyedCoProcessFunction}. */
  public <R> ConnectedStreams<T, R> connect(KeyedStream<R, K> other) {
    return new ConnectedStreams<>(environment, this, other);
  }

  /** Cuts the stream of each key into the windows of {@code assigner}. */
  public <W extends io.weir.api.windowing.windows.Window> WindowedStream<T, K, W> window(
      io.weir.api.windowing.assigners.WindowAssigner<? super T, W> assigner) {
    return new WindowedStream<>(this, assigner);
  }
}

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

  /**
   * Joins this stream with {@code other} on the key and on event time: each element of this stream
   * (left) meets the elements of {@code other} (right) whose timestamps lie within the bounds given
   * by {@link IntervalJoin#between}, as Flink's {@code intervalJoin}. Both streams need event time.
   */
  public <T1> IntervalJoin<T, T1, K> intervalJoin(KeyedStream<T1, K> other) {
    return new IntervalJoin<>(this, java.util.Objects.requireNonNull(other, "other stream"));
  }

  /** An interval join waiting for its bounds. */
  public static final class IntervalJoin<T1, T2, K> {
    private final KeyedStream<T1, K> left;
    private final KeyedStream<T2, K> right;

    IntervalJoin(KeyedStream<T1, K> left, KeyedStream<T2, K> right) {
      this.left = left;
      this.right = right;
    }

    /**
     * A left element at {@code t} joins the right elements at {@code [t + lowerBound, t +
     * upperBound]}, both inclusive.
     */
    public IntervalJoined<T1, T2, K> between(
        java.time.Duration lowerBound, java.time.Duration upperBound) {
      long lower = lowerBound.toMillis();
      long upper = upperBound.toMillis();
      if (lower > upper) {
        throw new IllegalArgumentException(
            "intervalJoin(...).between: the lower bound "
                + lowerBound
                + " must not be greater than the upper bound "
                + upperBound);
      }
      return new IntervalJoined<>(left, right, lower, upper);
    }
  }

  /** An interval join with its bounds, waiting for its function. */
  public static final class IntervalJoined<T1, T2, K> {
    private final KeyedStream<T1, K> left;
    private final KeyedStream<T2, K> right;
    private final long lower;
    private final long upper;
    private boolean lowerExclusive;
    private boolean upperExclusive;

    IntervalJoined(KeyedStream<T1, K> left, KeyedStream<T2, K> right, long lower, long upper) {
      this.left = left;
      this.right = right;
      this.lower = lower;
      this.upper = upper;
    }

    public IntervalJoined<T1, T2, K> lowerBoundExclusive() {
      lowerExclusive = true;
      return this;
    }

    public IntervalJoined<T1, T2, K> upperBoundExclusive() {
      upperExclusive = true;
      return this;
    }

    public <OUT> SingleOutputStreamOperator<OUT> process(
        io.weir.api.functions.ProcessJoinFunction<T1, T2, OUT> function) {
      java.util.Objects.requireNonNull(function, "process join function");
      io.weir.api.graph.IntervalJoinDefinition definition =
          new io.weir.api.graph.IntervalJoinDefinition(
              lower, upper, lowerExclusive, upperExclusive, function);
      Transformation<OUT> t =
          new io.weir.api.graph.TwoInputTransformation<>(
              left.getTransformation(),
              right.getTransformation(),
              "Interval Join",
              new Operation.IntervalJoin(definition, left.getType(), right.getType()),
              TypeExtractor.getOutputType(
                  function, io.weir.api.functions.ProcessJoinFunction.class, 2, "Interval Join"),
              Transformation.DEFAULT_PARALLELISM,
              left.keyContext,
              right.keyContext);
      return new SingleOutputStreamOperator<>(left.environment, t);
    }
  }
}

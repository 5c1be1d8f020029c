package io.weir.api;

import io.weir.api.functions.KeyedProcessFunction;
import io.weir.api.functions.ReduceFunction;
import io.weir.api.functions.aggregation.AggregationFunction;
import io.weir.api.functions.aggregation.AggregationFunction.AggregationType;
import io.weir.api.functions.aggregation.ComparableAggregator;
import io.weir.api.functions.aggregation.SumAggregator;
import io.weir.api.graph.KeyContext;
import io.weir.api.graph.Operation;
import io.weir.api.graph.PartitionTransformation;
import io.weir.api.graph.Partitioning;
import io.weir.api.graph.Transformation;
import io.weir.api.typeutils.TypeExtractor;
import io.weir.api.typeutils.TypeInformation;
import io.weir.api.windowing.assigners.GlobalWindows;
import io.weir.api.windowing.evictors.CountEvictor;
import io.weir.api.windowing.triggers.CountTrigger;
import io.weir.api.windowing.triggers.PurgingTrigger;
import io.weir.api.windowing.windows.GlobalWindow;
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

  /** {@code process(function)} with the result type given rather than extracted, as in Flink. */
  public <R> SingleOutputStreamOperator<R> process(
      KeyedProcessFunction<K, T, R> function, TypeInformation<R> outputType) {
    Objects.requireNonNull(function, "keyed process function");
    Objects.requireNonNull(outputType, "The result type given to Keyed Process is null");
    return transform("Keyed Process", new Operation.KeyedProcess<>(function), outputType);
  }

  /** Emits, for every element, the running reduction of its key. */
  public SingleOutputStreamOperator<T> reduce(ReduceFunction<T> reducer) {
    Objects.requireNonNull(reducer, "reduce function");
    return transform("Keyed Reduce", new Operation.Reduce<>(reducer), getType());
  }

  /**
   * Emits, for every element, its key's running sum of the field at {@code position}; the other
   * fields are those of the key's first element, as in Flink. Position 0 on a stream of numbers
   * sums the numbers themselves.
   */
  public SingleOutputStreamOperator<T> sum(int positionToSum) {
    return aggregate(new SumAggregator<>(positionToSum, getType()));
  }

  /**
   * {@link #sum(int)} of a named field: {@code "f0".."f4"} of a tuple, a field of a POJO or a
   * component of a record.
   */
  public SingleOutputStreamOperator<T> sum(String field) {
    return aggregate(new SumAggregator<>(field, getType()));
  }

  /**
   * Emits, for every element, its key's running minimum of the field at {@code position}: the key's
   * first element with only that field replaced, as Flink's {@code min} (use {@link #minBy(int)}
   * for the element that holds the minimum).
   */
  public SingleOutputStreamOperator<T> min(int positionToMin) {
    return aggregate(
        new ComparableAggregator<>(positionToMin, getType(), AggregationType.MIN, false));
  }

  /** {@link #min(int)} of a named field. */
  public SingleOutputStreamOperator<T> min(String field) {
    return aggregate(new ComparableAggregator<>(field, getType(), AggregationType.MIN, false));
  }

  /** Emits, for every element, its key's running maximum of the field, as {@link #min(int)}. */
  public SingleOutputStreamOperator<T> max(int positionToMax) {
    return aggregate(
        new ComparableAggregator<>(positionToMax, getType(), AggregationType.MAX, false));
  }

  /** {@link #max(int)} of a named field. */
  public SingleOutputStreamOperator<T> max(String field) {
    return aggregate(new ComparableAggregator<>(field, getType(), AggregationType.MAX, false));
  }

  /**
   * Emits, for every element, the element of its key with the smallest value of the field at {@code
   * position} so far; on ties the first such element.
   */
  public SingleOutputStreamOperator<T> minBy(int positionToMinBy) {
    return minBy(positionToMinBy, true);
  }

  /** {@link #minBy(int)} of a named field. */
  public SingleOutputStreamOperator<T> minBy(String field) {
    return minBy(field, true);
  }

  /** {@link #minBy(int)}; on ties the first element if {@code first}, else the last one. */
  public SingleOutputStreamOperator<T> minBy(int positionToMinBy, boolean first) {
    return aggregate(
        new ComparableAggregator<>(positionToMinBy, getType(), AggregationType.MINBY, first));
  }

  /** {@link #minBy(String)}; on ties the first element if {@code first}, else the last one. */
  public SingleOutputStreamOperator<T> minBy(String field, boolean first) {
    return aggregate(new ComparableAggregator<>(field, getType(), AggregationType.MINBY, first));
  }

  /**
   * Emits, for every element, the element of its key with the largest value of the field at {@code
   * position} so far; on ties the first such element.
   */
  public SingleOutputStreamOperator<T> maxBy(int positionToMaxBy) {
    return maxBy(positionToMaxBy, true);
  }

  /** {@link #maxBy(int)} of a named field. */
  public SingleOutputStreamOperator<T> maxBy(String field) {
    return maxBy(field, true);
  }

  /** {@link #maxBy(int)}; on ties the first element if {@code first}, else the last one. */
  public SingleOutputStreamOperator<T> maxBy(int positionToMaxBy, boolean first) {
    return aggregate(
        new ComparableAggregator<>(positionToMaxBy, getType(), AggregationType.MAXBY, first));
  }

  /** {@link #maxBy(String)}; on ties the first element if {@code first}, else the last one. */
  public SingleOutputStreamOperator<T> maxBy(String field, boolean first) {
    return aggregate(new ComparableAggregator<>(field, getType(), AggregationType.MAXBY, first));
  }

  /** A rolling aggregation: a reduce whose running result per key is keyed state. */
  private SingleOutputStreamOperator<T> aggregate(AggregationFunction<T> aggregation) {
    return transform("Keyed Aggregation", new Operation.Reduce<>(aggregation), getType());
  }

  /**
   * Windows of {@code size} elements per key (tumbling): each fires once it holds {@code size}
   * elements and is then emptied, as Flink's {@code countWindow(size)} (global windows with a
   * purging count trigger). A key's last, incomplete window never fires.
   */
  public WindowedStream<T, K, GlobalWindow> countWindow(long size) {
    checkCount(size, "size");
    return window(GlobalWindows.create()).trigger(PurgingTrigger.of(CountTrigger.of(size)));
  }

  /**
   * Sliding windows of the last {@code size} elements per key, firing every {@code slide} elements,
   * as Flink's {@code countWindow(size, slide)} (global windows with a count evictor and a count
   * trigger).
   */
  public WindowedStream<T, K, GlobalWindow> countWindow(long size, long slide) {
    checkCount(size, "size");
    checkCount(slide, "slide");
    return window(GlobalWindows.create())
        .evictor(CountEvictor.of(size))
        .trigger(CountTrigger.of(slide));
  }

  static void checkCount(long count, String what) {
    if (count < 1) {
      throw new IllegalArgumentException(
          "countWindow: the " + what + " must be at least 1 element, but was " + count);
    }
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

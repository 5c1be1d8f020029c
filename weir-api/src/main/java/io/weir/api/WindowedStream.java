package io.weir.api;

import io.weir.api.functions.AggregateFunction;
import io.weir.api.functions.Collector;
import io.weir.api.functions.OpenContext;
import io.weir.api.functions.ReduceFunction;
import io.weir.api.functions.RichFunction;
import io.weir.api.functions.RuntimeContext;
import io.weir.api.functions.aggregation.AggregationFunction;
import io.weir.api.functions.aggregation.AggregationFunction.AggregationType;
import io.weir.api.functions.aggregation.ComparableAggregator;
import io.weir.api.functions.aggregation.SumAggregator;
import io.weir.api.functions.windowing.ProcessWindowFunction;
import io.weir.api.functions.windowing.WindowFunction;
import io.weir.api.graph.Operation;
import io.weir.api.graph.WindowDefinition;
import io.weir.api.state.StateDescriptor;
import io.weir.api.typeutils.TypeExtractor;
import io.weir.api.typeutils.TypeInformation;
import io.weir.api.windowing.assigners.MergingWindowAssigner;
import io.weir.api.windowing.assigners.WindowAssigner;
import io.weir.api.windowing.evictors.Evictor;
import io.weir.api.windowing.triggers.Trigger;
import io.weir.api.windowing.windows.Window;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Objects;

/**
 * A keyed stream cut into windows, as Flink's {@code WindowedStream}: set the trigger, evictor,
 * allowed lateness and late-data side output, then give the function that turns each window into
 * results. Window contents, merging-window sets and trigger state are keyed state, so they are in
 * every checkpoint and work on every state backend.
 */
public class WindowedStream<T, K, W extends Window> {

  private final KeyedStream<T, K> input;
  private final WindowAssigner<? super T, W> assigner;
  private Trigger<? super T, ? super W> trigger;
  private Evictor<? super T, ? super W> evictor;
  private long allowedLateness;
  private OutputTag<T> lateDataTag;

  WindowedStream(KeyedStream<T, K> input, WindowAssigner<? super T, W> assigner) {
    this.input = input;
    this.assigner = Objects.requireNonNull(assigner, "window assigner");
    this.trigger = assigner.getDefaultTrigger();
  }

  /** Replaces the assigner's default trigger. */
  public WindowedStream<T, K, W> trigger(Trigger<? super T, ? super W> trigger) {
    Objects.requireNonNull(trigger, "trigger");
    if (assigner instanceof MergingWindowAssigner<?, ?> && !trigger.canMerge()) {
      throw new UnsupportedOperationException(
          "The trigger "
              + trigger
              + " cannot be used with the merging window assigner "
              + assigner
              + ": it does not support merging (canMerge() is false).");
    }
    this.trigger = trigger;
    return this;
  }

  /** Removes elements before and/or after the window function; the window keeps all elements. */
  public WindowedStream<T, K, W> evictor(Evictor<? super T, ? super W> evictor) {
    this.evictor = Objects.requireNonNull(evictor, "evictor");
    return this;
  }

  /**
   * How long after the end of an event-time window (by the watermark) it still takes late elements,
   * firing again with each; default 0. Ignored on processing time, as in Flink.
   */
  public WindowedStream<T, K, W> allowedLateness(Duration lateness) {
    Objects.requireNonNull(lateness, "allowed lateness");
    if (lateness.isNegative()) {
      throw new IllegalArgumentException(
          "The allowed lateness must not be negative, but was " + lateness);
    }
    this.allowedLateness = assigner.isEventTime() ? lateness.toMillis() : 0;
    return this;
  }

  /**
   * Elements too late for every window (beyond the allowed lateness) go to the side output {@code
   * outputTag} instead of being dropped; read it with {@code getSideOutput(outputTag)}.
   */
  public WindowedStream<T, K, W> sideOutputLateData(OutputTag<T> outputTag) {
    this.lateDataTag = Objects.requireNonNull(outputTag, "output tag");
    return this;
  }

  /** One result per window: the elements reduced incrementally (one value per key and window). */
  public SingleOutputStreamOperator<T> reduce(ReduceFunction<T> reducer) {
    Objects.requireNonNull(reducer, "reduce function");
    return build(
        "Reduce",
        new WindowDefinition.ReduceAggregate<>(reducer),
        input.getType(),
        null,
        input.getType());
  }

  /** The reduced element of each window, handed to {@code function} with the window. */
  public <R> SingleOutputStreamOperator<R> reduce(
      ReduceFunction<T> reducer, ProcessWindowFunction<T, R, K, W> function) {
    Objects.requireNonNull(reducer, "reduce function");
    Objects.requireNonNull(function, "process window function");
    return build(
        "Reduce",
        new WindowDefinition.ReduceAggregate<>(reducer),
        input.getType(),
        function,
        windowFunctionOutput(function));
  }

  /** One result per window from an accumulator per key and window, never a list of elements. */
  public <ACC, R> SingleOutputStreamOperator<R> aggregate(AggregateFunction<T, ACC, R> function) {
    Objects.requireNonNull(function, "aggregate function");
    return build(
        "Aggregate",
        function,
        accumulatorType(function),
        null,
        TypeExtractor.getOutputType(function, AggregateFunction.class, 2, name("Aggregate")));
  }

  /** The aggregate's result of each window, handed to {@code windowFunction} with the window. */
  public <ACC, V, R> SingleOutputStreamOperator<R> aggregate(
      AggregateFunction<T, ACC, V> aggregateFunction,
      ProcessWindowFunction<V, R, K, W> windowFunction) {
    Objects.requireNonNull(aggregateFunction, "aggregate function");
    Objects.requireNonNull(windowFunction, "process window function");
    return build(
        "Aggregate",
        aggregateFunction,
        accumulatorType(aggregateFunction),
        windowFunction,
        windowFunctionOutput(windowFunction));
  }

  /** {@code function} gets every element of the window when it fires. */
  public <R> SingleOutputStreamOperator<R> process(ProcessWindowFunction<T, R, K, W> function) {
    Objects.requireNonNull(function, "process window function");
    return build("Process", null, null, function, windowFunctionOutput(function));
  }

  /**
   * {@code function} gets every element of the window when it fires, as Flink's {@code
   * apply(WindowFunction)}; the output type comes from the function's signature.
   */
  public <R> SingleOutputStreamOperator<R> apply(WindowFunction<T, R, K, W> function) {
    Objects.requireNonNull(function, "window function");
    return apply(
        function, TypeExtractor.getOutputType(function, WindowFunction.class, 1, name("Apply")));
  }

  /** {@link #apply(WindowFunction)} with the output type given (for a lambda). */
  public <R> SingleOutputStreamOperator<R> apply(
      WindowFunction<T, R, K, W> function, TypeInformation<R> resultType) {
    Objects.requireNonNull(function, "window function");
    Objects.requireNonNull(resultType, "result type");
    return build("Apply", null, null, new WindowFunctionAdapter<>(function), resultType);
  }

  /** The reduced element of each window, handed to {@code function} with the window. */
  public <R> SingleOutputStreamOperator<R> reduce(
      ReduceFunction<T> reducer, WindowFunction<T, R, K, W> function) {
    Objects.requireNonNull(reducer, "reduce function");
    Objects.requireNonNull(function, "window function");
    return build(
        "Reduce",
        new WindowDefinition.ReduceAggregate<>(reducer),
        input.getType(),
        new WindowFunctionAdapter<>(function),
        TypeExtractor.getOutputType(function, WindowFunction.class, 1, name("Reduce")));
  }

  /** The aggregate's result of each window, handed to {@code windowFunction} with the window. */
  public <ACC, V, R> SingleOutputStreamOperator<R> aggregate(
      AggregateFunction<T, ACC, V> aggregateFunction, WindowFunction<V, R, K, W> windowFunction) {
    Objects.requireNonNull(aggregateFunction, "aggregate function");
    Objects.requireNonNull(windowFunction, "window function");
    return build(
        "Aggregate",
        aggregateFunction,
        accumulatorType(aggregateFunction),
        new WindowFunctionAdapter<>(windowFunction),
        TypeExtractor.getOutputType(windowFunction, WindowFunction.class, 1, name("Aggregate")));
  }

  /**
   * The sum of the field at {@code positionToSum} over each window; the other fields are those of
   * the window's first element, as in Flink.
   */
  public SingleOutputStreamOperator<T> sum(int positionToSum) {
    return aggregation(new SumAggregator<>(positionToSum, input.getType()));
  }

  /** {@link #sum(int)} of a named field of a tuple ({@code "f0"}), POJO or record. */
  public SingleOutputStreamOperator<T> sum(String field) {
    return aggregation(new SumAggregator<>(field, input.getType()));
  }

  /**
   * The minimum of the field at {@code positionToMin} over each window: the window's first element
   * with only that field replaced (see {@link #minBy(int)} for the element holding it).
   */
  public SingleOutputStreamOperator<T> min(int positionToMin) {
    return aggregation(
        new ComparableAggregator<>(positionToMin, input.getType(), AggregationType.MIN, false));
  }

  /** {@link #min(int)} of a named field. */
  public SingleOutputStreamOperator<T> min(String field) {
    return aggregation(
        new ComparableAggregator<>(field, input.getType(), AggregationType.MIN, false));
  }

  /** The maximum of the field over each window, as {@link #min(int)}. */
  public SingleOutputStreamOperator<T> max(int positionToMax) {
    return aggregation(
        new ComparableAggregator<>(positionToMax, input.getType(), AggregationType.MAX, false));
  }

  /** {@link #max(int)} of a named field. */
  public SingleOutputStreamOperator<T> max(String field) {
    return aggregation(
        new ComparableAggregator<>(field, input.getType(), AggregationType.MAX, false));
  }

  /** The element of each window with the smallest value of the field; on ties the first. */
  public SingleOutputStreamOperator<T> minBy(int positionToMinBy) {
    return minBy(positionToMinBy, true);
  }

  /** {@link #minBy(int)} of a named field. */
  public SingleOutputStreamOperator<T> minBy(String field) {
    return minBy(field, true);
  }

  /** {@link #minBy(int)}; on ties the first element if {@code first}, else the last. */
  public SingleOutputStreamOperator<T> minBy(int positionToMinBy, boolean first) {
    return aggregation(
        new ComparableAggregator<>(positionToMinBy, input.getType(), AggregationType.MINBY, first));
  }

  /** {@link #minBy(String)}; on ties the first element if {@code first}, else the last. */
  public SingleOutputStreamOperator<T> minBy(String field, boolean first) {
    return aggregation(
        new ComparableAggregator<>(field, input.getType(), AggregationType.MINBY, first));
  }

  /** The element of each window with the largest value of the field; on ties the first. */
  public SingleOutputStreamOperator<T> maxBy(int positionToMaxBy) {
    return maxBy(positionToMaxBy, true);
  }

  /** {@link #maxBy(int)} of a named field. */
  public SingleOutputStreamOperator<T> maxBy(String field) {
    return maxBy(field, true);
  }

  /** {@link #maxBy(int)}; on ties the first element if {@code first}, else the last. */
  public SingleOutputStreamOperator<T> maxBy(int positionToMaxBy, boolean first) {
    return aggregation(
        new ComparableAggregator<>(positionToMaxBy, input.getType(), AggregationType.MAXBY, first));
  }

  /** {@link #maxBy(String)}; on ties the first element if {@code first}, else the last. */
  public SingleOutputStreamOperator<T> maxBy(String field, boolean first) {
    return aggregation(
        new ComparableAggregator<>(field, input.getType(), AggregationType.MAXBY, first));
  }

  /** A built-in aggregation: a reduce, so each window keeps one value, never its elements. */
  private SingleOutputStreamOperator<T> aggregation(AggregationFunction<T> aggregation) {
    return build(
        aggregation.getClass().getSimpleName(),
        new WindowDefinition.ReduceAggregate<>(aggregation),
        input.getType(),
        null,
        input.getType());
  }

  private TypeInformation<?> accumulatorType(AggregateFunction<T, ?, ?> function) {
    return TypeExtractor.getOutputType(function, AggregateFunction.class, 1, name("Aggregate"));
  }

  private <R> TypeInformation<R> windowFunctionOutput(ProcessWindowFunction<?, R, K, W> function) {
    return TypeExtractor.getOutputType(function, ProcessWindowFunction.class, 1, name("Process"));
  }

  private String name(String function) {
    return "Window("
        + assigner
        + ", "
        + trigger
        + (evictor == null ? "" : ", " + evictor)
        + ", "
        + function
        + ")";
  }

  private <R> SingleOutputStreamOperator<R> build(
      String function,
      AggregateFunction<?, ?, ?> aggregate,
      TypeInformation<?> accumulatorType,
      ProcessWindowFunction<?, ?, ?, ?> windowFunction,
      TypeInformation<R> outputType) {
    WindowDefinition definition =
        new WindowDefinition(
            assigner, trigger, evictor, allowedLateness, lateDataTag, aggregate, windowFunction);
    return input.transform(
        name(function),
        new Operation.Window(definition, input.getType(), accumulatorType),
        outputType);
  }

  KeyedStream<T, K> input() {
    return input;
  }

  /** Runs a {@link WindowFunction} as a process window function, with its lifecycle if rich. */
  static final class WindowFunctionAdapter<T, R, K, W extends Window>
      extends ProcessWindowFunction<T, R, K, W> {
    private static final long serialVersionUID = 1L;

    private final WindowFunction<T, R, K, W> function;

    WindowFunctionAdapter(WindowFunction<T, R, K, W> function) {
      this.function = function;
    }

    @Override
    public void setRuntimeContext(RuntimeContext context) {
      super.setRuntimeContext(context);
      if (function instanceof RichFunction rich) {
        rich.setRuntimeContext(context);
      }
    }

    @Override
    public Collection<StateDescriptor<?>> usesStates() {
      return function instanceof RichFunction rich ? rich.usesStates() : List.of();
    }

    @Override
    public void open(OpenContext openContext) throws Exception {
      if (function instanceof RichFunction rich) {
        rich.open(openContext);
      }
    }

    @Override
    public void close() throws Exception {
      if (function instanceof RichFunction rich) {
        rich.close();
      }
    }

    @Override
    public void process(K key, Context context, Iterable<T> elements, Collector<R> out)
        throws Exception {
      function.apply(key, context.window(), elements, out);
    }
  }
}

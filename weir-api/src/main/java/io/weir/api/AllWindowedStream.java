package io.weir.api;

import io.weir.api.functions.AggregateFunction;
import io.weir.api.functions.Collector;
import io.weir.api.functions.OpenContext;
import io.weir.api.functions.ReduceFunction;
import io.weir.api.functions.RichFunction;
import io.weir.api.functions.RuntimeContext;
import io.weir.api.functions.windowing.AllWindowFunction;
import io.weir.api.functions.windowing.ProcessAllWindowFunction;
import io.weir.api.functions.windowing.ProcessWindowFunction;
import io.weir.api.functions.windowing.WindowFunction;
import io.weir.api.state.KeyedStateStore;
import io.weir.api.typeutils.TypeExtractor;
import io.weir.api.typeutils.TypeInformation;
import io.weir.api.windowing.evictors.Evictor;
import io.weir.api.windowing.triggers.Trigger;
import io.weir.api.windowing.windows.Window;
import java.time.Duration;

/**
 * The windows of a whole (non-keyed) stream, as Flink's {@code AllWindowedStream}: one operator
 * with parallelism 1 sees every element.
 */
public class AllWindowedStream<T, W extends Window> {

  private final WindowedStream<T, Byte, W> windowed;

  AllWindowedStream(WindowedStream<T, Byte, W> windowed) {
    this.windowed = windowed;
  }

  public AllWindowedStream<T, W> trigger(Trigger<? super T, ? super W> trigger) {
    windowed.trigger(trigger);
    return this;
  }

  public AllWindowedStream<T, W> evictor(Evictor<? super T, ? super W> evictor) {
    windowed.evictor(evictor);
    return this;
  }

  public AllWindowedStream<T, W> allowedLateness(Duration lateness) {
    windowed.allowedLateness(lateness);
    return this;
  }

  public AllWindowedStream<T, W> sideOutputLateData(OutputTag<T> outputTag) {
    windowed.sideOutputLateData(outputTag);
    return this;
  }

  public SingleOutputStreamOperator<T> reduce(ReduceFunction<T> reducer) {
    return windowed.reduce(reducer).setParallelism(1);
  }

  public <ACC, R> SingleOutputStreamOperator<R> aggregate(AggregateFunction<T, ACC, R> function) {
    return windowed.aggregate(function).setParallelism(1);
  }

  public <R> SingleOutputStreamOperator<R> process(ProcessAllWindowFunction<T, R, W> function) {
    SingleOutputStreamOperator<R> out =
        windowed.process(new AllWindowFunctionAdapter<>(function)).setParallelism(1);
    out.returns(
        TypeExtractor.<R>getOutputType(
            function, ProcessAllWindowFunction.class, 1, "Process All Window"));
    return out;
  }

  /** {@code function} gets every element of the window when it fires, as Flink's {@code apply}. */
  public <R> SingleOutputStreamOperator<R> apply(AllWindowFunction<T, R, W> function) {
    java.util.Objects.requireNonNull(function, "all-window function");
    return apply(
        function,
        TypeExtractor.<R>getOutputType(function, AllWindowFunction.class, 1, "All Window Apply"));
  }

  /** {@link #apply(AllWindowFunction)} with the output type given (for a lambda). */
  public <R> SingleOutputStreamOperator<R> apply(
      AllWindowFunction<T, R, W> function, TypeInformation<R> resultType) {
    java.util.Objects.requireNonNull(function, "all-window function");
    return windowed
        .apply(new AllWindowFunctionAsWindowFunction<>(function), resultType)
        .setParallelism(1);
  }

  /** The sum of the field at {@code positionToSum} over each window, as {@code WindowedStream}. */
  public SingleOutputStreamOperator<T> sum(int positionToSum) {
    return windowed.sum(positionToSum).setParallelism(1);
  }

  public SingleOutputStreamOperator<T> sum(String field) {
    return windowed.sum(field).setParallelism(1);
  }

  /** The window's first element with the field replaced by its minimum. */
  public SingleOutputStreamOperator<T> min(int positionToMin) {
    return windowed.min(positionToMin).setParallelism(1);
  }

  public SingleOutputStreamOperator<T> min(String field) {
    return windowed.min(field).setParallelism(1);
  }

  /** The window's first element with the field replaced by its maximum. */
  public SingleOutputStreamOperator<T> max(int positionToMax) {
    return windowed.max(positionToMax).setParallelism(1);
  }

  public SingleOutputStreamOperator<T> max(String field) {
    return windowed.max(field).setParallelism(1);
  }

  /** The window's element with the field's minimum; on ties the first. */
  public SingleOutputStreamOperator<T> minBy(int positionToMinBy) {
    return windowed.minBy(positionToMinBy).setParallelism(1);
  }

  public SingleOutputStreamOperator<T> minBy(String field) {
    return windowed.minBy(field).setParallelism(1);
  }

  public SingleOutputStreamOperator<T> minBy(int positionToMinBy, boolean first) {
    return windowed.minBy(positionToMinBy, first).setParallelism(1);
  }

  public SingleOutputStreamOperator<T> minBy(String field, boolean first) {
    return windowed.minBy(field, first).setParallelism(1);
  }

  /** The window's element with the field's maximum; on ties the first. */
  public SingleOutputStreamOperator<T> maxBy(int positionToMaxBy) {
    return windowed.maxBy(positionToMaxBy).setParallelism(1);
  }

  public SingleOutputStreamOperator<T> maxBy(String field) {
    return windowed.maxBy(field).setParallelism(1);
  }

  public SingleOutputStreamOperator<T> maxBy(int positionToMaxBy, boolean first) {
    return windowed.maxBy(positionToMaxBy, first).setParallelism(1);
  }

  public SingleOutputStreamOperator<T> maxBy(String field, boolean first) {
    return windowed.maxBy(field, first).setParallelism(1);
  }

  /** Runs an {@link AllWindowFunction} as the window function of the single key. */
  static final class AllWindowFunctionAsWindowFunction<T, R, W extends Window>
      implements WindowFunction<T, R, Byte, W>, RichFunction {
    private static final long serialVersionUID = 1L;

    private final AllWindowFunction<T, R, W> function;
    private RuntimeContext context;

    AllWindowFunctionAsWindowFunction(AllWindowFunction<T, R, W> function) {
      this.function = function;
    }

    @Override
    public void apply(Byte key, W window, Iterable<T> input, Collector<R> out) throws Exception {
      function.apply(window, input, out);
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
    public java.util.Collection<io.weir.api.state.StateDescriptor<?>> usesStates() {
      return function instanceof RichFunction rich ? rich.usesStates() : java.util.List.of();
    }

    @Override
    public RuntimeContext getRuntimeContext() {
      return context;
    }

    @Override
    public void setRuntimeContext(RuntimeContext context) {
      this.context = context;
      if (function instanceof RichFunction rich) {
        rich.setRuntimeContext(context);
      }
    }
  }

  /** Runs a {@link ProcessAllWindowFunction} as the window function of the single key. */
  static final class AllWindowFunctionAdapter<T, R, W extends Window>
      extends ProcessWindowFunction<T, R, Byte, W> {
    private static final long serialVersionUID = 1L;

    private final ProcessAllWindowFunction<T, R, W> function;

    AllWindowFunctionAdapter(ProcessAllWindowFunction<T, R, W> function) {
      this.function = function;
    }

    @Override
    public void setRuntimeContext(RuntimeContext context) {
      super.setRuntimeContext(context);
      function.setRuntimeContext(context);
    }

    @Override
    public void open(OpenContext openContext) throws Exception {
      function.open(openContext);
    }

    @Override
    public void close() throws Exception {
      function.close();
    }

    @Override
    public void process(Byte key, Context context, Iterable<T> elements, Collector<R> out)
        throws Exception {
      function.process(wrap(context), elements, out);
    }

    @Override
    public void clear(Context context) throws Exception {
      function.clear(wrap(context));
    }

    private ProcessAllWindowFunction<T, R, W>.Context wrap(Context context) {
      return function.new Context() {
        @Override
        public W window() {
          return context.window();
        }

        @Override
        public KeyedStateStore windowState() {
          return context.windowState();
        }

        @Override
        public KeyedStateStore globalState() {
          return context.globalState();
        }

        @Override
        public <X> void output(OutputTag<X> outputTag, X value) {
          context.output(outputTag, value);
        }
      };
    }
  }
}

package io.weir.api;

import io.weir.api.functions.AggregateFunction;
import io.weir.api.functions.Collector;
import io.weir.api.functions.OpenContext;
import io.weir.api.functions.ReduceFunction;
import io.weir.api.functions.RuntimeContext;
import io.weir.api.functions.windowing.ProcessAllWindowFunction;
import io.weir.api.functions.windowing.ProcessWindowFunction;
import io.weir.api.state.KeyedStateStore;
import io.weir.api.typeutils.TypeExtractor;
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

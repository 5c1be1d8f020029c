package io.weir.api;

import io.weir.api.functions.CoGroupFunction;
import io.weir.api.functions.Collector;
import io.weir.api.functions.JoinFunction;
import io.weir.api.functions.KeySelector;
import io.weir.api.functions.OpenContext;
import io.weir.api.functions.RichFunction;
import io.weir.api.functions.RuntimeContext;
import io.weir.api.tuple.Tuple2;
import io.weir.api.typeutils.TypeExtractor;
import io.weir.api.typeutils.TypeInformation;
import io.weir.api.windowing.assigners.WindowAssigner;
import io.weir.api.windowing.evictors.Evictor;
import io.weir.api.windowing.triggers.Trigger;
import io.weir.api.windowing.windows.Window;
import java.time.Duration;
import java.util.Objects;

/**
 * A window join, as Flink's {@code JoinedStreams}: {@code first.join(second).where(key1)
 * .equalTo(key2).window(assigner).apply(function)} joins, per key and window, every element of the
 * first stream with every element of the second. As in Flink it is a {@link CoGroupedStreams
 * coGroup} whose function emits the cross product, so it has everything windows have: state in the
 * backend, triggers, evictors, allowed lateness.
 */
public class JoinedStreams<T1, T2> {

  private final DataStream<T1> input1;
  private final DataStream<T2> input2;

  JoinedStreams(DataStream<T1> input1, DataStream<T2> input2) {
    this.input1 = Objects.requireNonNull(input1, "first input");
    this.input2 = Objects.requireNonNull(input2, "second input");
  }

  /** The key of the first stream's elements. */
  public <K> Where<K> where(KeySelector<T1, K> keySelector) {
    Objects.requireNonNull(keySelector, "key selector");
    return new Where<>(
        keySelector, TypeExtractor.getOutputType(keySelector, KeySelector.class, 1, "Join"));
  }

  /** {@link #where(KeySelector)} with the key type given explicitly (lambdas lose it). */
  public <K> Where<K> where(KeySelector<T1, K> keySelector, TypeInformation<K> keyType) {
    return new Where<>(
        Objects.requireNonNull(keySelector, "key selector"),
        Objects.requireNonNull(keyType, "key type"));
  }

  /** A join with the key of the first stream. */
  public final class Where<K> {
    private final KeySelector<T1, K> key1;
    private final TypeInformation<K> keyType;

    Where(KeySelector<T1, K> key1, TypeInformation<K> keyType) {
      this.key1 = key1;
      this.keyType = keyType;
    }

    /** The key of the second stream's elements; it must equal the first's to join. */
    public EqualTo equalTo(KeySelector<T2, K> key2) {
      return new EqualTo(Objects.requireNonNull(key2, "key selector"));
    }

    /** A join with both keys. */
    public final class EqualTo {
      private final KeySelector<T2, K> key2;

      EqualTo(KeySelector<T2, K> key2) {
        this.key2 = key2;
      }

      public <W extends Window> WithWindow<W> window(
          WindowAssigner<? super Tuple2<T1, T2>, W> assigner) {
        return new WithWindow<>(key2, assigner);
      }
    }

    /** A join with keys and windows, waiting for its function. */
    public final class WithWindow<W extends Window> {
      private final KeySelector<T2, K> key2;
      private final WindowAssigner<? super Tuple2<T1, T2>, W> assigner;
      private Trigger<? super Tuple2<T1, T2>, ? super W> trigger;
      private Evictor<? super Tuple2<T1, T2>, ? super W> evictor;
      private Duration allowedLateness;

      WithWindow(KeySelector<T2, K> key2, WindowAssigner<? super Tuple2<T1, T2>, W> assigner) {
        this.key2 = key2;
        this.assigner = Objects.requireNonNull(assigner, "window assigner");
      }

      public WithWindow<W> trigger(Trigger<? super Tuple2<T1, T2>, ? super W> trigger) {
        this.trigger = trigger;
        return this;
      }

      public WithWindow<W> evictor(Evictor<? super Tuple2<T1, T2>, ? super W> evictor) {
        this.evictor = evictor;
        return this;
      }

      public WithWindow<W> allowedLateness(Duration lateness) {
        this.allowedLateness = lateness;
        return this;
      }

      /** {@code function} gets every pair of the key's first and second elements per window. */
      public <R> SingleOutputStreamOperator<R> apply(JoinFunction<T1, T2, R> function) {
        Objects.requireNonNull(function, "join function");
        return apply(
            function, TypeExtractor.getOutputType(function, JoinFunction.class, 2, "Window Join"));
      }

      /** {@link #apply(JoinFunction)} with the result type given. */
      public <R> SingleOutputStreamOperator<R> apply(
          JoinFunction<T1, T2, R> function, TypeInformation<R> resultType) {
        Objects.requireNonNull(function, "join function");
        CoGroupedStreams<T1, T2>.Where<K>.WithWindow<W> coGrouped =
            new CoGroupedStreams<>(input1, input2)
                .where(key1, keyType)
                .equalTo(key2)
                .window(assigner)
                .trigger(trigger)
                .evictor(evictor)
                .allowedLateness(allowedLateness);
        return coGrouped.apply(new JoinCoGroup<>(function), resultType, "Window Join");
      }
    }
  }

  /** The cross product of a window's first and second elements, through the join function. */
  static final class JoinCoGroup<T1, T2, R> implements CoGroupFunction<T1, T2, R>, RichFunction {
    private static final long serialVersionUID = 1L;
    private final JoinFunction<T1, T2, R> function;
    private transient RuntimeContext runtimeContext;

    JoinCoGroup(JoinFunction<T1, T2, R> function) {
      this.function = function;
    }

    @Override
    public RuntimeContext getRuntimeContext() {
      return runtimeContext;
    }

    @Override
    public void setRuntimeContext(RuntimeContext context) {
      this.runtimeContext = context;
      if (function instanceof RichFunction rich) {
        rich.setRuntimeContext(context);
      }
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
    public void coGroup(Iterable<T1> first, Iterable<T2> second, Collector<R> out)
        throws Exception {
      for (T1 a : first) {
        for (T2 b : second) {
          out.collect(function.join(a, b));
        }
      }
    }
  }
}

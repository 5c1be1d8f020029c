package io.weir.api;

import io.weir.api.functions.CoGroupFunction;
import io.weir.api.functions.Collector;
import io.weir.api.functions.KeySelector;
import io.weir.api.functions.MapFunction;
import io.weir.api.functions.OpenContext;
import io.weir.api.functions.RichFunction;
import io.weir.api.functions.RuntimeContext;
import io.weir.api.functions.windowing.ProcessWindowFunction;
import io.weir.api.tuple.Tuple2;
import io.weir.api.typeutils.TypeExtractor;
import io.weir.api.typeutils.TypeInformation;
import io.weir.api.typeutils.Types;
import io.weir.api.windowing.assigners.WindowAssigner;
import io.weir.api.windowing.evictors.Evictor;
import io.weir.api.windowing.triggers.Trigger;
import io.weir.api.windowing.windows.Window;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * A window coGroup, as Flink's {@code CoGroupedStreams}: {@code first.coGroup(second).where(key1)
 * .equalTo(key2).window(assigner).apply(function)} gives the function, per key and window, all
 * elements of the first stream and all of the second (either side may be empty). As in Flink it is
 * a window over the union of both streams, each element tagged with its side ({@code Tuple2(first,
 * null)} or {@code Tuple2(null, second)}), so it has everything windows have: state in the backend,
 * triggers, evictors, allowed lateness. The window join ({@link JoinedStreams}) is this coGroup
 * with a function that emits the cross product.
 */
public class CoGroupedStreams<T1, T2> {

  private final DataStream<T1> input1;
  private final DataStream<T2> input2;

  CoGroupedStreams(DataStream<T1> input1, DataStream<T2> input2) {
    this.input1 = Objects.requireNonNull(input1, "first input");
    this.input2 = Objects.requireNonNull(input2, "second input");
  }

  /** The key of the first stream's elements. */
  public <K> Where<K> where(KeySelector<T1, K> keySelector) {
    Objects.requireNonNull(keySelector, "key selector");
    return new Where<>(
        keySelector, TypeExtractor.getOutputType(keySelector, KeySelector.class, 1, "CoGroup"));
  }

  /** {@link #where(KeySelector)} with the key type given explicitly (lambdas lose it). */
  public <K> Where<K> where(KeySelector<T1, K> keySelector, TypeInformation<K> keyType) {
    return new Where<>(
        Objects.requireNonNull(keySelector, "key selector"),
        Objects.requireNonNull(keyType, "key type"));
  }

  /** A coGroup with the key of the first stream. */
  public final class Where<K> {
    private final KeySelector<T1, K> key1;
    private final TypeInformation<K> keyType;

    Where(KeySelector<T1, K> key1, TypeInformation<K> keyType) {
      this.key1 = key1;
      this.keyType = keyType;
    }

    /** The key of the second stream's elements; elements with equal keys are grouped. */
    public EqualTo equalTo(KeySelector<T2, K> key2) {
      return new EqualTo(Objects.requireNonNull(key2, "key selector"));
    }

    /** A coGroup with both keys. */
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

    /** A coGroup with keys and windows, waiting for its function. */
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

      /** {@code function} gets the key's first and second elements per window. */
      public <R> SingleOutputStreamOperator<R> apply(CoGroupFunction<T1, T2, R> function) {
        Objects.requireNonNull(function, "coGroup function");
        return apply(
            function,
            TypeExtractor.getOutputType(function, CoGroupFunction.class, 2, "Window CoGroup"));
      }

      /** {@link #apply(CoGroupFunction)} with the result type given. */
      public <R> SingleOutputStreamOperator<R> apply(
          CoGroupFunction<T1, T2, R> function, TypeInformation<R> resultType) {
        return apply(function, resultType, "Window CoGroup");
      }

      /** The window over the tagged union of both inputs, named {@code name}. */
      <R> SingleOutputStreamOperator<R> apply(
          CoGroupFunction<T1, T2, R> function, TypeInformation<R> resultType, String name) {
        Objects.requireNonNull(function, "coGroup function");
        TypeInformation<Tuple2<T1, T2>> unionType = Types.TUPLE(input1.getType(), input2.getType());
        DataStream<Tuple2<T1, T2>> tagged1 =
            input1.map(new TagFirst<T1, T2>()).name(name + ": first").returns(unionType);
        DataStream<Tuple2<T1, T2>> tagged2 =
            input2.map(new TagSecond<T1, T2>()).name(name + ": second").returns(unionType);
        WindowedStream<Tuple2<T1, T2>, K, W> windowed =
            tagged1.union(tagged2).keyBy(new UnionKey<>(key1, key2), keyType).window(assigner);
        if (trigger != null) {
          windowed.trigger(trigger);
        }
        if (evictor != null) {
          windowed.evictor(evictor);
        }
        if (allowedLateness != null) {
          windowed.allowedLateness(allowedLateness);
        }
        return windowed
            .process(new CoGroupWindow<T1, T2, R, K, W>(function))
            .name(name)
            .returns(resultType);
      }
    }
  }

  /** Tags an element of the first stream. */
  static final class TagFirst<T1, T2> implements MapFunction<T1, Tuple2<T1, T2>> {
    private static final long serialVersionUID = 1L;

    @Override
    public Tuple2<T1, T2> map(T1 value) {
      return Tuple2.of(value, null);
    }
  }

  /** Tags an element of the second stream. */
  static final class TagSecond<T1, T2> implements MapFunction<T2, Tuple2<T1, T2>> {
    private static final long serialVersionUID = 1L;

    @Override
    public Tuple2<T1, T2> map(T2 value) {
      return Tuple2.of(null, value);
    }
  }

  /** The key of a tagged element, by its side. */
  static final class UnionKey<T1, T2, K> implements KeySelector<Tuple2<T1, T2>, K> {
    private static final long serialVersionUID = 1L;
    private final KeySelector<T1, K> key1;
    private final KeySelector<T2, K> key2;

    UnionKey(KeySelector<T1, K> key1, KeySelector<T2, K> key2) {
      this.key1 = key1;
      this.key2 = key2;
    }

    @Override
    public K getKey(Tuple2<T1, T2> value) throws Exception {
      return value.f0 != null ? key1.getKey(value.f0) : key2.getKey(value.f1);
    }
  }

  /** Splits a window's tagged elements by side and hands both to the coGroup function. */
  static final class CoGroupWindow<T1, T2, R, K, W extends Window>
      extends ProcessWindowFunction<Tuple2<T1, T2>, R, K, W> {
    private static final long serialVersionUID = 1L;
    private final CoGroupFunction<T1, T2, R> function;

    CoGroupWindow(CoGroupFunction<T1, T2, R> function) {
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
    public void process(K key, Context context, Iterable<Tuple2<T1, T2>> elements, Collector<R> out)
        throws Exception {
      List<T1> first = new ArrayList<>();
      List<T2> second = new ArrayList<>();
      for (Tuple2<T1, T2> e : elements) {
        if (e.f0 != null) {
          first.add(e.f0);
        } else {
          second.add(e.f1);
        }
      }
      function.coGroup(first, second, out);
    }
  }
}

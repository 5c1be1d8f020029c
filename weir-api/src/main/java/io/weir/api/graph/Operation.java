package io.weir.api.graph;

import io.weir.api.eventtime.WatermarkStrategy;
import io.weir.api.functions.CoProcessFunction;
import io.weir.api.functions.FilterFunction;
import io.weir.api.functions.FlatMapFunction;
import io.weir.api.functions.Function;
import io.weir.api.functions.KeyedCoProcessFunction;
import io.weir.api.functions.KeyedProcessFunction;
import io.weir.api.functions.MapFunction;
import io.weir.api.functions.ProcessFunction;
import io.weir.api.functions.ReduceFunction;
import io.weir.api.functions.SinkFunction;
import io.weir.api.sink.Sink;
import io.weir.api.typeutils.TypeInformation;

/** What a one- or two-input transformation does with its elements; the runtime runs it. */
public sealed interface Operation {

  /** The user's object behind the operation (function or sink). */
  Object userObject();

  /** {@code map}. */
  record Map<T, O>(MapFunction<T, O> function) implements Operation {
    @Override
    public Object userObject() {
      return function;
    }
  }

  /** {@code flatMap}. */
  record FlatMap<T, O>(FlatMapFunction<T, O> function) implements Operation {
    @Override
    public Object userObject() {
      return function;
    }
  }

  /** {@code filter}. */
  record Filter<T>(FilterFunction<T> function) implements Operation {
    @Override
    public Object userObject() {
      return function;
    }
  }

  /** {@code process} on a non-keyed stream. */
  record Process<T, O>(ProcessFunction<T, O> function) implements Operation {
    @Override
    public Object userObject() {
      return function;
    }
  }

  /** {@code process} on a keyed stream. */
  record KeyedProcess<K, T, O>(KeyedProcessFunction<K, T, O> function) implements Operation {
    @Override
    public Object userObject() {
      return function;
    }
  }

  /** {@code reduce} (and {@code sum}) on a keyed stream: emits the running result per key. */
  record Reduce<T>(ReduceFunction<T> function) implements Operation {
    @Override
    public Object userObject() {
      return function;
    }
  }

  /** {@code process} on connected streams. */
  record CoProcess<I1, I2, O>(CoProcessFunction<I1, I2, O> function) implements Operation {
    @Override
    public Object userObject() {
      return function;
    }
  }

  /** {@code process} on connected keyed streams. */
  record KeyedCoProcess<K, I1, I2, O>(KeyedCoProcessFunction<K, I1, I2, O> function)
      implements Operation {
    @Override
    public Object userObject() {
      return function;
    }
  }

  /**
   * {@code assignTimestampsAndWatermarks}: timestamps from the strategy's assigner, watermarks from
   * its generator, emitted every {@code autoWatermarkIntervalMillis} (0: only on events).
   */
  record AssignTimestamps<T>(WatermarkStrategy<T> strategy, long autoWatermarkIntervalMillis)
      implements Operation {
    @Override
    public Object userObject() {
      return strategy;
    }
  }

  /**
   * {@code keyBy(...).window(...)} with its function, or {@code windowAll(...)}.
   *
   * @param definition the assigner, trigger, evictor, lateness and functions (shipped as user code)
   * @param inputType the type of the elements
   * @param accumulatorType the type of the aggregate's accumulator; null for {@code process}
   */
  record Window(
      WindowDefinition definition, TypeInformation<?> inputType, TypeInformation<?> accumulatorType)
      implements Operation {
    @Override
    public Object userObject() {
      return definition;
    }
  }

  /**
   * {@code keyBy(...).intervalJoin(keyBy(...)).between(lower, upper).process(function)}.
   *
   * @param leftType the type of the first input's elements
   * @param rightType the type of the second input's elements
   */
  record IntervalJoin(
      IntervalJoinDefinition definition, TypeInformation<?> leftType, TypeInformation<?> rightType)
      implements Operation {
    @Override
    public Object userObject() {
      return definition;
    }
  }

  /** {@code addSink}. */
  record SinkFn<T>(SinkFunction<T> function) implements Operation {
    @Override
    public Object userObject() {
      return function;
    }
  }

  /** {@code sinkTo}. */
  record SinkTo<T>(Sink<T> sink) implements Operation {
    @Override
    public Object userObject() {
      return sink;
    }
  }

  /** True for the operations that end a stream. */
  default boolean isSink() {
    return this instanceof SinkFn<?> || this instanceof SinkTo<?>;
  }

  /** The user function, when the operation is one. */
  default Function function() {
    return userObject() instanceof Function f ? f : null;
  }
}

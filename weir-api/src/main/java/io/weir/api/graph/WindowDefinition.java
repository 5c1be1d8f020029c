package io.weir.api.graph;

import io.weir.api.OutputTag;
import io.weir.api.functions.AggregateFunction;
import io.weir.api.functions.ReduceFunction;
import io.weir.api.functions.windowing.ProcessWindowFunction;
import io.weir.api.windowing.assigners.WindowAssigner;
import io.weir.api.windowing.evictors.Evictor;
import io.weir.api.windowing.triggers.Trigger;
import java.io.Serializable;

/**
 * Everything a window operator runs: shipped to each subtask as user code.
 *
 * @param assigner puts elements into windows
 * @param trigger decides when windows fire
 * @param evictor removes elements before/after firing; null for none
 * @param allowedLateness millis after the end of an event-time window during which it still takes
 *     late elements (and fires again)
 * @param lateDataTag where elements too late for every window go; null drops them
 * @param aggregate folds elements into one accumulator per key and window; null for {@code
 *     process}, where windows keep their elements
 * @param windowFunction runs on the aggregate result or on the elements; null emits the aggregate
 *     result as it is
 */
public record WindowDefinition(
    WindowAssigner<?, ?> assigner,
    Trigger<?, ?> trigger,
    Evictor<?, ?> evictor,
    long allowedLateness,
    OutputTag<?> lateDataTag,
    AggregateFunction<?, ?, ?> aggregate,
    ProcessWindowFunction<?, ?, ?, ?> windowFunction)
    implements Serializable {

  /** {@code reduce} as an aggregate whose accumulator is the reduced element (null: empty). */
  public record ReduceAggregate<T>(ReduceFunction<T> reducer)
      implements AggregateFunction<T, T, T> {
    private static final long serialVersionUID = 1L;

    @Override
    public T createAccumulator() {
      return null;
    }

    @Override
    public T add(T value, T accumulator) {
      try {
        return accumulator == null ? value : reducer.reduce(accumulator, value);
      } catch (RuntimeException e) {
        throw e;
      } catch (Exception e) {
        throw new IllegalStateException("The reduce function failed: " + e, e);
      }
    }

    @Override
    public T getResult(T accumulator) {
      return accumulator;
    }

    @Override
    public T merge(T a, T b) {
      return a == null ? b : b == null ? a : add(b, a);
    }
  }
}

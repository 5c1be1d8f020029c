package io.weir.api.functions.windowing;

import io.weir.api.functions.Collector;
import io.weir.api.functions.Function;
import io.weir.api.windowing.windows.Window;

/**
 * {@link WindowFunction} for {@code windowAll}: runs when a window of the whole stream fires, as
 * Flink's {@code AllWindowFunction}.
 */
@FunctionalInterface
public interface AllWindowFunction<IN, OUT, W extends Window> extends Function {

  /** Emits the results of {@code window}, whose elements are {@code values}. */
  void apply(W window, Iterable<IN> values, Collector<OUT> out) throws Exception;
}

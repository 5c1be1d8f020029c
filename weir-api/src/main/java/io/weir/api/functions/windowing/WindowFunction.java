package io.weir.api.functions.windowing;

import io.weir.api.functions.Collector;
import io.weir.api.functions.Function;
import io.weir.api.windowing.windows.Window;

/**
 * Runs when a window of a key fires, with the window and its elements, as Flink's {@code
 * WindowFunction}: the older, simpler form of {@link ProcessWindowFunction}, without window state
 * or side outputs. Make it a {@link io.weir.api.functions.RichFunction} to get {@code open}, {@code
 * close} and the runtime context.
 */
@FunctionalInterface
public interface WindowFunction<IN, OUT, KEY, W extends Window> extends Function {

  /** Emits the results of {@code window} of {@code key}, whose elements are {@code input}. */
  void apply(KEY key, W window, Iterable<IN> input, Collector<OUT> out) throws Exception;
}

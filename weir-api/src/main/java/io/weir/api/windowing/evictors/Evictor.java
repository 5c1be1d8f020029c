package io.weir.api.windowing.evictors;

import io.weir.api.windowing.windows.Window;
import java.io.Serializable;

/**
 * Removes elements from a window before and/or after the window function runs, as Flink's {@code
 * Evictor}: remove them through the iterator of {@code elements}. A window with an evictor keeps
 * all its elements (an {@code aggregate} or {@code reduce} is then computed when it fires).
 */
public interface Evictor<T, W extends Window> extends Serializable {

  void evictBefore(
      Iterable<TimestampedValue<T>> elements, int size, W window, EvictorContext evictorContext);

  void evictAfter(
      Iterable<TimestampedValue<T>> elements, int size, W window, EvictorContext evictorContext);

  /** What an evictor sees of the runtime. */
  interface EvictorContext {
    long getCurrentProcessingTime();

    long getCurrentWatermark();
  }
}

package io.weir.api.windowing.evictors;

import io.weir.api.windowing.windows.Window;
import java.util.Iterator;

/** Keeps at most the last {@code maxCount} elements of a window. */
public final class CountEvictor<W extends Window> implements Evictor<Object, W> {
  private static final long serialVersionUID = 1L;

  private final long maxCount;
  private final boolean doEvictAfter;

  private CountEvictor(long maxCount, boolean doEvictAfter) {
    if (maxCount < 0) {
      throw new IllegalArgumentException("CountEvictor.of: the count must not be negative");
    }
    this.maxCount = maxCount;
    this.doEvictAfter = doEvictAfter;
  }

  /** Evicts before the window function. */
  public static <W extends Window> CountEvictor<W> of(long maxCount) {
    return new CountEvictor<>(maxCount, false);
  }

  /** Evicts after the window function when {@code doEvictAfter}, else before. */
  public static <W extends Window> CountEvictor<W> of(long maxCount, boolean doEvictAfter) {
    return new CountEvictor<>(maxCount, doEvictAfter);
  }

  @Override
  public void evictBefore(
      Iterable<TimestampedValue<Object>> elements, int size, W window, EvictorContext ctx) {
    if (!doEvictAfter) {
      evict(elements, size);
    }
  }

  @Override
  public void evictAfter(
      Iterable<TimestampedValue<Object>> elements, int size, W window, EvictorContext ctx) {
    if (doEvictAfter) {
      evict(elements, size);
    }
  }

  private void evict(Iterable<TimestampedValue<Object>> elements, int size) {
    long toEvict = size - maxCount;
    Iterator<TimestampedValue<Object>> it = elements.iterator();
    for (long i = 0; i < toEvict && it.hasNext(); i++) {
      it.next();
      it.remove();
    }
  }
}

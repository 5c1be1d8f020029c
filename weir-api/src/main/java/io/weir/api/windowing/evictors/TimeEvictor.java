package io.weir.api.windowing.evictors;

import io.weir.api.windowing.windows.Window;
import java.time.Duration;
import java.util.Iterator;

/**
 * Keeps the elements whose timestamp is within {@code windowSize} of the newest element of the
 * window.
 */
public final class TimeEvictor<W extends Window> implements Evictor<Object, W> {
  private static final long serialVersionUID = 1L;

  private final long windowSize;
  private final boolean doEvictAfter;

  private TimeEvictor(long windowSize, boolean doEvictAfter) {
    this.windowSize = windowSize;
    this.doEvictAfter = doEvictAfter;
  }

  public static <W extends Window> TimeEvictor<W> of(Duration windowSize) {
    return new TimeEvictor<>(windowSize.toMillis(), false);
  }

  public static <W extends Window> TimeEvictor<W> of(Duration windowSize, boolean doEvictAfter) {
    return new TimeEvictor<>(windowSize.toMillis(), doEvictAfter);
  }

  @Override
  public void evictBefore(
      Iterable<TimestampedValue<Object>> elements, int size, W window, EvictorContext ctx) {
    if (!doEvictAfter) {
      evict(elements);
    }
  }

  @Override
  public void evictAfter(
      Iterable<TimestampedValue<Object>> elements, int size, W window, EvictorContext ctx) {
    if (doEvictAfter) {
      evict(elements);
    }
  }

  private void evict(Iterable<TimestampedValue<Object>> elements) {
    long max = Long.MIN_VALUE;
    for (TimestampedValue<Object> e : elements) {
      if (!e.hasTimestamp()) {
        return; // as in Flink: elements without timestamps are never evicted by time
      }
      max = Math.max(max, e.getTimestamp());
    }
    long cutoff = max - windowSize;
    for (Iterator<TimestampedValue<Object>> it = elements.iterator(); it.hasNext(); ) {
      if (it.next().getTimestamp() <= cutoff) {
        it.remove();
      }
    }
  }
}

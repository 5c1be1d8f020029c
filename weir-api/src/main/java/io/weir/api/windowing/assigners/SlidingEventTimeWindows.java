package io.weir.api.windowing.assigners;

import io.weir.api.typeutils.TypeInformation;
import io.weir.api.typeutils.Types;
import io.weir.api.windowing.triggers.EventTimeTrigger;
import io.weir.api.windowing.triggers.Trigger;
import io.weir.api.windowing.windows.TimeWindow;
import java.time.Duration;
import java.util.Collection;

/** Fixed-size windows that start every {@code slide}, so they overlap, on event time. */
public final class SlidingEventTimeWindows extends WindowAssigner<Object, TimeWindow> {
  private static final long serialVersionUID = 1L;

  private final long size;
  private final long slide;
  private final long offset;
  private final SlidingWindows windows;

  private SlidingEventTimeWindows(long size, long slide, long offset) {
    if (Math.abs(offset) >= slide) {
      throw new IllegalArgumentException(
          "SlidingEventTimeWindows: the offset must be smaller than the slide, but was "
              + offset
              + " ms for a slide of "
              + slide
              + " ms");
    }
    this.size = size;
    this.slide = slide;
    this.offset = offset;
    this.windows = new SlidingWindows(size, slide, offset);
  }

  public static SlidingEventTimeWindows of(Duration size, Duration slide) {
    return new SlidingEventTimeWindows(
        checkPositive(size, "The window size"), checkPositive(slide, "The window slide"), 0);
  }

  public static SlidingEventTimeWindows of(Duration size, Duration slide, Duration offset) {
    return new SlidingEventTimeWindows(
        checkPositive(size, "The window size"),
        checkPositive(slide, "The window slide"),
        offset.toMillis());
  }

  @Override
  public Collection<TimeWindow> assignWindows(
      Object element, long timestamp, WindowAssignerContext context) {
    if (timestamp == Long.MIN_VALUE) {
      throw noTimestamp("SlidingEventTimeWindows");
    }
    return windows.assign(timestamp);
  }

  @Override
  public Trigger<Object, TimeWindow> getDefaultTrigger() {
    return EventTimeTrigger.create();
  }

  @Override
  public TypeInformation<TimeWindow> getWindowType() {
    return Types.RECORD(TimeWindow.class);
  }

  @Override
  public boolean isEventTime() {
    return true;
  }

  @Override
  public String toString() {
    return "SlidingEventTimeWindows(" + size + ", " + slide + ")";
  }
}

package io.weir.api.windowing.assigners;

import io.weir.api.typeutils.TypeInformation;
import io.weir.api.typeutils.Types;
import io.weir.api.windowing.triggers.ProcessingTimeTrigger;
import io.weir.api.windowing.triggers.Trigger;
import io.weir.api.windowing.windows.TimeWindow;
import java.time.Duration;
import java.util.Collection;

/** Fixed-size windows that start every {@code slide}, so they overlap, on processing time. */
public final class SlidingProcessingTimeWindows extends WindowAssigner<Object, TimeWindow> {
  private static final long serialVersionUID = 1L;

  private final long size;
  private final long slide;
  private final long offset;
  private final SlidingWindows windows;

  private SlidingProcessingTimeWindows(long size, long slide, long offset) {
    if (Math.abs(offset) >= slide) {
      throw new IllegalArgumentException(
          "SlidingProcessingTimeWindows: the offset must be smaller than the slide, but was "
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

  public static SlidingProcessingTimeWindows of(Duration size, Duration slide) {
    return new SlidingProcessingTimeWindows(
        checkPositive(size, "The window size"), checkPositive(slide, "The window slide"), 0);
  }

  public static SlidingProcessingTimeWindows of(Duration size, Duration slide, Duration offset) {
    return new SlidingProcessingTimeWindows(
        checkPositive(size, "The window size"),
        checkPositive(slide, "The window slide"),
        offset.toMillis());
  }

  @Override
  public Collection<TimeWindow> assignWindows(
      Object element, long timestamp, WindowAssignerContext context) {
    return windows.assign(context.getCurrentProcessingTime());
  }

  @Override
  public Trigger<Object, TimeWindow> getDefaultTrigger() {
    return ProcessingTimeTrigger.create();
  }

  @Override
  public TypeInformation<TimeWindow> getWindowType() {
    return Types.RECORD(TimeWindow.class);
  }

  @Override
  public boolean isEventTime() {
    return false;
  }

  @Override
  public String toString() {
    return "SlidingProcessingTimeWindows(" + size + ", " + slide + ")";
  }
}

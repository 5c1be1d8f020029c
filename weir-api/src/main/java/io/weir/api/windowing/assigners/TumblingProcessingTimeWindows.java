package io.weir.api.windowing.assigners;

import io.weir.api.typeutils.TypeInformation;
import io.weir.api.typeutils.Types;
import io.weir.api.windowing.triggers.ProcessingTimeTrigger;
import io.weir.api.windowing.triggers.Trigger;
import io.weir.api.windowing.windows.TimeWindow;
import java.time.Duration;
import java.util.Collection;
import java.util.List;

/** Fixed-size windows that do not overlap, on processing time. */
public final class TumblingProcessingTimeWindows extends WindowAssigner<Object, TimeWindow> {
  private static final long serialVersionUID = 1L;

  private final long size;
  private final long offset;

  private TumblingProcessingTimeWindows(long size, long offset) {
    if (Math.abs(offset) >= size) {
      throw new IllegalArgumentException(
          "TumblingProcessingTimeWindows: the offset must be smaller than the size, but was "
              + offset
              + " ms for a size of "
              + size
              + " ms");
    }
    this.size = size;
    this.offset = offset;
  }

  public static TumblingProcessingTimeWindows of(Duration size) {
    return new TumblingProcessingTimeWindows(checkPositive(size, "The window size"), 0);
  }

  /** Windows shifted by {@code offset} (for example to a time zone). */
  public static TumblingProcessingTimeWindows of(Duration size, Duration offset) {
    return new TumblingProcessingTimeWindows(
        checkPositive(size, "The window size"), offset.toMillis());
  }

  @Override
  public Collection<TimeWindow> assignWindows(
      Object element, long timestamp, WindowAssignerContext context) {
    long time = context.getCurrentProcessingTime();
    long start = TimeWindow.getWindowStartWithOffset(time, offset, size);
    return List.of(new TimeWindow(start, start + size));
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
    return "TumblingProcessingTimeWindows(" + size + ")";
  }
}

package io.weir.api.windowing.assigners;

import io.weir.api.typeutils.TypeInformation;
import io.weir.api.typeutils.Types;
import io.weir.api.windowing.triggers.EventTimeTrigger;
import io.weir.api.windowing.triggers.Trigger;
import io.weir.api.windowing.windows.TimeWindow;
import java.time.Duration;
import java.util.Collection;
import java.util.List;

/** Fixed-size windows that do not overlap, on event time. */
public final class TumblingEventTimeWindows extends WindowAssigner<Object, TimeWindow> {
  private static final long serialVersionUID = 1L;

  private final long size;
  private final long offset;

  private TumblingEventTimeWindows(long size, long offset) {
    if (Math.abs(offset) >= size) {
      throw new IllegalArgumentException(
          "TumblingEventTimeWindows: the offset must be smaller than the size, but was "
              + offset
              + " ms for a size of "
              + size
              + " ms");
    }
    this.size = size;
    this.offset = offset;
  }

  public static TumblingEventTimeWindows of(Duration size) {
    return new TumblingEventTimeWindows(checkPositive(size, "The window size"), 0);
  }

  /** Windows shifted by {@code offset} (for example to a time zone). */
  public static TumblingEventTimeWindows of(Duration size, Duration offset) {
    return new TumblingEventTimeWindows(checkPositive(size, "The window size"), offset.toMillis());
  }

  @Override
  public Collection<TimeWindow> assignWindows(
      Object element, long timestamp, WindowAssignerContext context) {
    if (timestamp == Long.MIN_VALUE) {
      throw noTimestamp("TumblingEventTimeWindows");
    }
    long time = timestamp;
    long start = TimeWindow.getWindowStartWithOffset(time, offset, size);
    return List.of(new TimeWindow(start, start + size));
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
    return "TumblingEventTimeWindows(" + size + ")";
  }
}

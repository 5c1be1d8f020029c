package io.weir.api.windowing.assigners;

import io.weir.api.typeutils.TypeInformation;
import io.weir.api.typeutils.Types;
import io.weir.api.windowing.triggers.EventTimeTrigger;
import io.weir.api.windowing.triggers.Trigger;
import io.weir.api.windowing.windows.TimeWindow;
import java.time.Duration;
import java.util.Collection;
import java.util.List;

/**
 * Session windows on event time: an element opens {@code [t, t + gap)}, and windows of a key that
 * overlap merge, so a session ends after a gap without elements.
 */
public final class EventTimeSessionWindows extends MergingWindowAssigner<Object, TimeWindow> {
  private static final long serialVersionUID = 1L;

  private final long gap;

  private EventTimeSessionWindows(long gap) {
    this.gap = gap;
  }

  public static EventTimeSessionWindows withGap(Duration gap) {
    return new EventTimeSessionWindows(checkPositive(gap, "The session gap"));
  }

  @Override
  public Collection<TimeWindow> assignWindows(
      Object element, long timestamp, WindowAssignerContext context) {
    if (timestamp == Long.MIN_VALUE) {
      throw noTimestamp("EventTimeSessionWindows");
    }
    long time = timestamp;
    return List.of(new TimeWindow(time, time + gap));
  }

  @Override
  public void mergeWindows(Collection<TimeWindow> windows, MergeCallback<TimeWindow> callback) {
    TimeWindow.mergeWindows(windows, callback);
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
    return "EventTimeSessionWindows(" + gap + ")";
  }
}

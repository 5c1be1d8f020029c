package io.weir.api.windowing.triggers;

import io.weir.api.windowing.windows.TimeWindow;

/** Fires once the watermark passes the end of the window; the default of event-time windows. */
public final class EventTimeTrigger extends Trigger<Object, TimeWindow> {
  private static final long serialVersionUID = 1L;

  private EventTimeTrigger() {}

  public static EventTimeTrigger create() {
    return new EventTimeTrigger();
  }

  @Override
  public TriggerResult onElement(
      Object element, long timestamp, TimeWindow window, TriggerContext ctx) {
    if (window.maxTimestamp() <= ctx.getCurrentWatermark()) {
      return TriggerResult.FIRE; // a late element within the allowed lateness
    }
    ctx.registerEventTimeTimer(window.maxTimestamp());
    return TriggerResult.CONTINUE;
  }

  @Override
  public TriggerResult onEventTime(long time, TimeWindow window, TriggerContext ctx) {
    return time == window.maxTimestamp() ? TriggerResult.FIRE : TriggerResult.CONTINUE;
  }

  @Override
  public TriggerResult onProcessingTime(long time, TimeWindow window, TriggerContext ctx) {
    return TriggerResult.CONTINUE;
  }

  @Override
  public void clear(TimeWindow window, TriggerContext ctx) {
    ctx.deleteEventTimeTimer(window.maxTimestamp());
  }

  @Override
  public boolean canMerge() {
    return true;
  }

  @Override
  public void onMerge(TimeWindow window, OnMergeContext ctx) {
    if (window.maxTimestamp() > ctx.getCurrentWatermark()) {
      ctx.registerEventTimeTimer(window.maxTimestamp());
    }
  }

  @Override
  public String toString() {
    return "EventTimeTrigger()";
  }
}

package io.weir.api.windowing.triggers;

import io.weir.api.windowing.windows.TimeWindow;

/** Fires when processing time passes the end of the window; default of processing-time windows. */
public final class ProcessingTimeTrigger extends Trigger<Object, TimeWindow> {
  private static final long serialVersionUID = 1L;

  private ProcessingTimeTrigger() {}

  public static ProcessingTimeTrigger create() {
    return new ProcessingTimeTrigger();
  }

  @Override
  public TriggerResult onElement(
      Object element, long timestamp, TimeWindow window, TriggerContext ctx) {
    ctx.registerProcessingTimeTimer(window.maxTimestamp());
    return TriggerResult.CONTINUE;
  }

  @Override
  public TriggerResult onEventTime(long time, TimeWindow window, TriggerContext ctx) {
    return TriggerResult.CONTINUE;
  }

  @Override
  public TriggerResult onProcessingTime(long time, TimeWindow window, TriggerContext ctx) {
    return TriggerResult.FIRE;
  }

  @Override
  public void clear(TimeWindow window, TriggerContext ctx) {
    ctx.deleteProcessingTimeTimer(window.maxTimestamp());
  }

  @Override
  public boolean canMerge() {
    return true;
  }

  @Override
  public void onMerge(TimeWindow window, OnMergeContext ctx) {
    if (window.maxTimestamp() > ctx.getCurrentProcessingTime()) {
      ctx.registerProcessingTimeTimer(window.maxTimestamp());
    }
  }

  @Override
  public String toString() {
    return "ProcessingTimeTrigger()";
  }
}

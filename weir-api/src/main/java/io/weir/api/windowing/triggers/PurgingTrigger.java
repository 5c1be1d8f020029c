package io.weir.api.windowing.triggers;

import io.weir.api.windowing.windows.Window;
import java.util.Objects;

/** Turns every FIRE of the trigger it wraps into FIRE_AND_PURGE. */
public final class PurgingTrigger<T, W extends Window> extends Trigger<T, W> {
  private static final long serialVersionUID = 1L;

  private final Trigger<T, W> nestedTrigger;

  private PurgingTrigger(Trigger<T, W> nestedTrigger) {
    this.nestedTrigger = Objects.requireNonNull(nestedTrigger, "nested trigger");
  }

  public static <T, W extends Window> PurgingTrigger<T, W> of(Trigger<T, W> nestedTrigger) {
    return new PurgingTrigger<>(nestedTrigger);
  }

  private static TriggerResult purging(TriggerResult result) {
    return result.isFire() ? TriggerResult.FIRE_AND_PURGE : result;
  }

  @Override
  public TriggerResult onElement(T element, long timestamp, W window, TriggerContext ctx)
      throws Exception {
    return purging(nestedTrigger.onElement(element, timestamp, window, ctx));
  }

  @Override
  public TriggerResult onEventTime(long time, W window, TriggerContext ctx) throws Exception {
    return purging(nestedTrigger.onEventTime(time, window, ctx));
  }

  @Override
  public TriggerResult onProcessingTime(long time, W window, TriggerContext ctx) throws Exception {
    return purging(nestedTrigger.onProcessingTime(time, window, ctx));
  }

  @Override
  public void clear(W window, TriggerContext ctx) throws Exception {
    nestedTrigger.clear(window, ctx);
  }

  @Override
  public boolean canMerge() {
    return nestedTrigger.canMerge();
  }

  @Override
  public void onMerge(W window, OnMergeContext ctx) throws Exception {
    nestedTrigger.onMerge(window, ctx);
  }

  public Trigger<T, W> getNestedTrigger() {
    return nestedTrigger;
  }

  @Override
  public String toString() {
    return "PurgingTrigger(" + nestedTrigger + ")";
  }
}

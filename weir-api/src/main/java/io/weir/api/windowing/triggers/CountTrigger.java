package io.weir.api.windowing.triggers;

import io.weir.api.state.ReducingState;
import io.weir.api.state.ReducingStateDescriptor;
import io.weir.api.typeutils.Types;
import io.weir.api.windowing.windows.Window;

/** Fires every {@code maxCount} elements of a window (the count is state, per key and window). */
public final class CountTrigger<W extends Window> extends Trigger<Object, W> {
  private static final long serialVersionUID = 1L;

  private final long maxCount;

  private CountTrigger(long maxCount) {
    if (maxCount < 1) {
      throw new IllegalArgumentException(
          "CountTrigger.of: the count must be at least 1, but was " + maxCount);
    }
    this.maxCount = maxCount;
  }

  public static <W extends Window> CountTrigger<W> of(long maxCount) {
    return new CountTrigger<>(maxCount);
  }

  private static ReducingStateDescriptor<Long> countDescriptor() {
    return new ReducingStateDescriptor<>("count", Long::sum, Types.LONG);
  }

  @Override
  public TriggerResult onElement(Object element, long timestamp, W window, TriggerContext ctx)
      throws Exception {
    ReducingState<Long> count = ctx.getPartitionedState(countDescriptor());
    count.add(1L);
    if (count.get() >= maxCount) {
      count.clear();
      return TriggerResult.FIRE;
    }
    return TriggerResult.CONTINUE;
  }

  @Override
  public TriggerResult onEventTime(long time, W window, TriggerContext ctx) {
    return TriggerResult.CONTINUE;
  }

  @Override
  public TriggerResult onProcessingTime(long time, W window, TriggerContext ctx) {
    return TriggerResult.CONTINUE;
  }

  @Override
  public void clear(W window, TriggerContext ctx) throws Exception {
    ctx.getPartitionedState(countDescriptor()).clear();
  }

  @Override
  public boolean canMerge() {
    return true;
  }

  @Override
  public void onMerge(W window, OnMergeContext ctx) throws Exception {
    ctx.mergePartitionedState(countDescriptor());
  }

  @Override
  public String toString() {
    return "CountTrigger(" + maxCount + ")";
  }
}

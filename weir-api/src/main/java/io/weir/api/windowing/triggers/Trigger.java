package io.weir.api.windowing.triggers;

import io.weir.api.state.KeyedStateStore;
import io.weir.api.state.ReducingState;
import io.weir.api.state.ReducingStateDescriptor;
import io.weir.api.state.ValueState;
import io.weir.api.state.ValueStateDescriptor;
import io.weir.api.windowing.windows.Window;
import java.io.Serializable;

/**
 * Decides when a window fires and when its contents are purged, as Flink's {@code Trigger}. A
 * trigger keeps what it needs in state scoped to the key and window ({@link
 * TriggerContext#getPartitionedState}), and registers timers; both are checkpointed with the
 * window. Called on the task thread.
 */
public abstract class Trigger<T, W extends Window> implements Serializable {
  private static final long serialVersionUID = 1L;

  /** An element was added to {@code window}. */
  public abstract TriggerResult onElement(T element, long timestamp, W window, TriggerContext ctx)
      throws Exception;

  /** A processing-time timer of this trigger fired. */
  public abstract TriggerResult onProcessingTime(long time, W window, TriggerContext ctx)
      throws Exception;

  /** An event-time timer of this trigger fired. */
  public abstract TriggerResult onEventTime(long time, W window, TriggerContext ctx)
      throws Exception;

  /** True when the trigger can be used with merging windows (sessions). */
  public boolean canMerge() {
    return false;
  }

  /** Windows merged into {@code window}: set up timers and merge state for it. */
  public void onMerge(W window, OnMergeContext ctx) throws Exception {
    throw new UnsupportedOperationException(
        getClass().getName() + " does not support merging windows; override canMerge and onMerge");
  }

  /** The window is gone: delete its timers and state. */
  public abstract void clear(W window, TriggerContext ctx) throws Exception;

  /** What a trigger sees of the runtime, scoped to the current key and window. */
  public interface TriggerContext {
    long getCurrentProcessingTime();

    long getCurrentWatermark();

    void registerProcessingTimeTimer(long time);

    void registerEventTimeTimer(long time);

    void deleteProcessingTimeTimer(long time);

    void deleteEventTimeTimer(long time);

    /** A value kept per key and window. */
    <S> ValueState<S> getPartitionedState(ValueStateDescriptor<S> stateDescriptor);

    /** A reducing value kept per key and window (mergeable). */
    <S> ReducingState<S> getPartitionedState(ReducingStateDescriptor<S> stateDescriptor);

    /** State per key only, shared by every window of the key. */
    KeyedStateStore getKeyedStateStore();
  }

  /** The context of {@link #onMerge}. */
  public interface OnMergeContext extends TriggerContext {
    /** Combines the state of the merged windows into the state of the resulting window. */
    <S> void mergePartitionedState(ReducingStateDescriptor<S> stateDescriptor) throws Exception;
  }
}

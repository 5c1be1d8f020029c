package io.weir.api.windowing.assigners;

import io.weir.api.typeutils.TypeInformation;
import io.weir.api.windowing.triggers.Trigger;
import io.weir.api.windowing.windows.Window;
import java.io.Serializable;
import java.util.Collection;

/**
 * Puts each element into zero or more windows, as Flink's {@code WindowAssigner}. Shipped to every
 * subtask; called on the task thread.
 */
public abstract class WindowAssigner<T, W extends Window> implements Serializable {
  private static final long serialVersionUID = 1L;

  /** The windows {@code element} with {@code timestamp} belongs to. */
  public abstract Collection<W> assignWindows(
      T element, long timestamp, WindowAssignerContext context);

  /** The trigger used when the window does not set one. */
  public abstract Trigger<? super T, ? super W> getDefaultTrigger();

  /** The type of the windows, for their serializer in state. */
  public abstract TypeInformation<W> getWindowType();

  /** True when windows are defined on event time (then lateness applies). */
  public abstract boolean isEventTime();

  /** What an assigner may ask the runtime. */
  public abstract static class WindowAssignerContext {
    public abstract long getCurrentProcessingTime();
  }

  /** The error for an event-time assigner that gets an element without a timestamp. */
  protected static IllegalStateException noTimestamp(String assigner) {
    return new IllegalStateException(
        assigner
            + " got an element without a timestamp. Give the source a WatermarkStrategy"
            + " (fromSource(source, strategy, name)) or call assignTimestampsAndWatermarks(...)"
            + " before the window, or use a processing-time window.");
  }

  protected static long checkPositive(java.time.Duration d, String what) {
    if (d == null || d.isNegative() || d.isZero()) {
      throw new IllegalArgumentException(what + " must be positive, but was " + d);
    }
    return d.toMillis();
  }
}

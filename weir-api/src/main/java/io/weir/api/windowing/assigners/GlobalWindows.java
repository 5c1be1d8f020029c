package io.weir.api.windowing.assigners;

import io.weir.api.typeutils.TypeInformation;
import io.weir.api.typeutils.Types;
import io.weir.api.windowing.triggers.Trigger;
import io.weir.api.windowing.triggers.TriggerResult;
import io.weir.api.windowing.windows.GlobalWindow;
import java.util.Collection;
import java.util.List;

/**
 * One window per key holding every element; it fires only through a trigger of your own, such as
 * {@code CountTrigger.of(n)} (its default trigger never fires).
 */
public final class GlobalWindows extends WindowAssigner<Object, GlobalWindow> {
  private static final long serialVersionUID = 1L;

  private GlobalWindows() {}

  public static GlobalWindows create() {
    return new GlobalWindows();
  }

  @Override
  public Collection<GlobalWindow> assignWindows(
      Object element, long timestamp, WindowAssignerContext context) {
    return List.of(GlobalWindow.get());
  }

  @Override
  public Trigger<Object, GlobalWindow> getDefaultTrigger() {
    return new NeverTrigger();
  }

  @Override
  public TypeInformation<GlobalWindow> getWindowType() {
    return Types.RECORD(GlobalWindow.class);
  }

  @Override
  public boolean isEventTime() {
    return false;
  }

  @Override
  public String toString() {
    return "GlobalWindows()";
  }

  /** The default trigger of global windows: it never fires. */
  public static final class NeverTrigger extends Trigger<Object, GlobalWindow> {
    private static final long serialVersionUID = 1L;

    @Override
    public TriggerResult onElement(
        Object element, long timestamp, GlobalWindow window, TriggerContext ctx) {
      return TriggerResult.CONTINUE;
    }

    @Override
    public TriggerResult onEventTime(long time, GlobalWindow window, TriggerContext ctx) {
      return TriggerResult.CONTINUE;
    }

    @Override
    public TriggerResult onProcessingTime(long time, GlobalWindow window, TriggerContext ctx) {
      return TriggerResult.CONTINUE;
    }

    @Override
    public void clear(GlobalWindow window, TriggerContext ctx) {}

    @Override
    public boolean canMerge() {
      return true;
    }

    @Override
    public void onMerge(GlobalWindow window, OnMergeContext ctx) {}
  }
}

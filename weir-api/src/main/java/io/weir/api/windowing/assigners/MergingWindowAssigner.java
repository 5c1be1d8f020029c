package io.weir.api.windowing.assigners;

import io.weir.api.windowing.windows.Window;
import java.util.Collection;

/** An assigner whose windows can merge as elements arrive (session windows). */
public abstract class MergingWindowAssigner<T, W extends Window> extends WindowAssigner<T, W> {
  private static final long serialVersionUID = 1L;

  /** Finds which of {@code windows} merge and reports each merge to {@code callback}. */
  public abstract void mergeWindows(Collection<W> windows, MergeCallback<W> callback);

  /** Told about one merge. */
  public interface MergeCallback<W> {
    /**
     * @param toBeMerged the windows that merge (at least two)
     * @param mergeResult the window they become
     */
    void merge(Collection<W> toBeMerged, W mergeResult);
  }
}

package io.weir.runtime.operators.windowing;

import io.weir.api.state.MapState;
import io.weir.api.windowing.assigners.MergingWindowAssigner;
import io.weir.api.windowing.windows.Window;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The session windows of the current key, as Flink's {@code MergingWindowSet}: each window the key
 * has maps to its state window, the window under which its contents are stored. When windows merge,
 * the contents of all their state windows go into one of them, which then holds the merged window's
 * contents, so merging moves each element at most once per merge. The mapping is keyed state
 * ({@code _window_merging}), loaded for one element and written back with {@link #persist}. Task
 * thread only.
 */
final class MergingWindowSet<W extends Window> {

  /** What happens to the state when windows merge. */
  interface MergeFunction<W> {
    /**
     * @param mergeResult the window the merged windows become
     * @param mergedWindows the windows that merge into it (not including a new window)
     * @param stateWindowResult the state window of the result
     * @param mergedStateWindows the state windows whose contents move into {@code
     *     stateWindowResult}
     */
    void merge(
        W mergeResult,
        Collection<W> mergedWindows,
        W stateWindowResult,
        Collection<W> mergedStateWindows)
        throws Exception;
  }

  private final MapState<W, W> state;
  private final MergingWindowAssigner<?, W> assigner;
  private final Map<W, W> mapping = new LinkedHashMap<>();
  private final Map<W, W> initial = new HashMap<>();

  MergingWindowSet(MapState<W, W> state, MergingWindowAssigner<?, W> assigner) throws Exception {
    this.state = state;
    this.assigner = assigner;
    for (Map.Entry<W, W> e : state.entries()) {
      mapping.put(e.getKey(), e.getValue());
    }
    initial.putAll(mapping);
  }

  /** The state window of {@code window}, or null when the window is not (or no longer) here. */
  W getStateWindow(W window) {
    return mapping.get(window);
  }

  /** Removes {@code window} (its contents were cleared). */
  void retireWindow(W window) {
    if (mapping.remove(window) == null) {
      throw new IllegalStateException(
          "Window " + window + " is not in the merging window set of the current key");
    }
  }

  /**
   * Adds {@code newWindow}, merging it with the windows it overlaps; returns the window it ended up
   * in (itself, or the merge result).
   */
  W addWindow(W newWindow, MergeFunction<W> mergeFunction) throws Exception {
    List<W> windows = new ArrayList<>(mapping.keySet());
    windows.add(newWindow);
    Map<W, Collection<W>> mergeResults = new LinkedHashMap<>();
    assigner.mergeWindows(
        windows,
        (toBeMerged, mergeResult) -> mergeResults.put(mergeResult, new ArrayList<>(toBeMerged)));

    W resultWindow = newWindow;
    boolean mergedNewWindow = false;
    for (Map.Entry<W, Collection<W>> c : mergeResults.entrySet()) {
      W mergeResult = c.getKey();
      Collection<W> mergedWindows = c.getValue();
      if (mergedWindows.remove(newWindow)) {
        mergedNewWindow = true;
        resultWindow = mergeResult;
      }
      // The merge result takes the state window of one of the windows it merges.
      W mergedStateWindow = mapping.get(mergedWindows.iterator().next());
      List<W> mergedStateWindows = new ArrayList<>();
      for (W mergedWindow : mergedWindows) {
        W res = mapping.remove(mergedWindow);
        if (res != null) {
          mergedStateWindows.add(res);
        }
      }
      mapping.put(mergeResult, mergedStateWindow);
      mergedStateWindows.remove(mergedStateWindow);
      // A new window inside one existing window merges nothing: it never had state.
      if (!(mergedWindows.contains(mergeResult) && mergedWindows.size() == 1)) {
        mergeFunction.merge(mergeResult, mergedWindows, mergedStateWindow, mergedStateWindows);
      }
    }
    if (mergeResults.isEmpty() || (resultWindow.equals(newWindow) && !mergedNewWindow)) {
      mapping.put(resultWindow, resultWindow);
    }
    return resultWindow;
  }

  /** Writes the changes back into keyed state. */
  void persist() throws Exception {
    for (W window : initial.keySet()) {
      if (!mapping.containsKey(window)) {
        state.remove(window);
      }
    }
    for (Map.Entry<W, W> e : mapping.entrySet()) {
      if (!e.getValue().equals(initial.get(e.getKey()))) {
        state.put(e.getKey(), e.getValue());
      }
    }
    initial.clear();
    initial.putAll(mapping);
  }
}

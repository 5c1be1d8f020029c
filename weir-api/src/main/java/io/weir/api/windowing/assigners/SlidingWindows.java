package io.weir.api.windowing.assigners;

import io.weir.api.windowing.windows.TimeWindow;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.List;

/**
 * The windows of a sliding assigner, each start's window made once while it is recent: every
 * element of a sliding window of {@code size / slide} windows would otherwise allocate that many
 * windows, and the window operator's state and timers would hold that many equal copies. Windows
 * are the same for every key, so a few slots cover what a subtask's elements fall into. One per
 * assigner instance, and an assigner is a subtask's own copy; a racing caller could at worst make a
 * window twice, as windows are immutable and checked by start before they are reused.
 */
final class SlidingWindows implements Serializable {
  private static final long serialVersionUID = 1L;
  private static final int SLOTS = 64;

  private final long size;
  private final long slide;
  private final long offset;
  private transient TimeWindow[] recent; // made on first use, also after deserialization

  SlidingWindows(long size, long slide, long offset) {
    this.size = size;
    this.slide = slide;
    this.offset = offset;
  }

  /** The windows {@code time} falls into, latest start first (as Flink lists them). */
  List<TimeWindow> assign(long time) {
    List<TimeWindow> windows = new ArrayList<>((int) (size / slide) + 1);
    long lastStart = TimeWindow.getWindowStartWithOffset(time, offset, slide);
    for (long start = lastStart; start > time - size; start -= slide) {
      windows.add(window(start));
    }
    return windows;
  }

  private TimeWindow window(long start) {
    if (recent == null) {
      recent = new TimeWindow[SLOTS];
    }
    int slot = (int) Math.floorMod(Math.floorDiv(start - offset, slide), (long) SLOTS);
    TimeWindow window = recent[slot];
    if (window == null || window.start() != start) {
      window = new TimeWindow(start, start + size);
      recent[slot] = window;
    }
    return window;
  }
}

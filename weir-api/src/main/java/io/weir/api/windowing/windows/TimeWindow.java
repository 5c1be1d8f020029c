package io.weir.api.windowing.windows;

import io.weir.api.windowing.assigners.MergingWindowAssigner;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The time interval {@code [start, end)}, epoch millis.
 *
 * @param start inclusive
 * @param end exclusive
 */
public record TimeWindow(long start, long end) implements Window {

  // equals and hashCode written out (the same values as a record's): the generated ones go
  // through method handles, and windows are hashed for every element of a window operator.
  @Override
  public boolean equals(Object o) {
    return o instanceof TimeWindow other && start == other.start && end == other.end;
  }

  @Override
  public int hashCode() {
    return 31 * Long.hashCode(start) + Long.hashCode(end);
  }

  public long getStart() {
    return start;
  }

  public long getEnd() {
    return end;
  }

  @Override
  public long maxTimestamp() {
    return end - 1;
  }

  /** True when the two windows overlap or touch. */
  public boolean intersects(TimeWindow other) {
    return start <= other.end && end >= other.start;
  }

  /** The smallest window containing both. */
  public TimeWindow cover(TimeWindow other) {
    return new TimeWindow(Math.min(start, other.start), Math.max(end, other.end));
  }

  /**
   * The start of the window of {@code windowSize} (shifted by {@code offset}) holding timestamp.
   */
  public static long getWindowStartWithOffset(long timestamp, long offset, long windowSize) {
    long remainder = (timestamp - offset) % windowSize;
    return remainder < 0 ? timestamp - (remainder + windowSize) : timestamp - remainder;
  }

  /** Merges overlapping windows, as session windows do; calls back once per merge. */
  public static void mergeWindows(
      Collection<TimeWindow> windows, MergingWindowAssigner.MergeCallback<TimeWindow> callback) {
    List<TimeWindow> sorted = new ArrayList<>(windows);
    sorted.sort(Comparator.comparingLong(TimeWindow::getStart));
    List<TimeWindow> covers = new ArrayList<>();
    List<Set<TimeWindow>> members = new ArrayList<>();
    TimeWindow current = null;
    Set<TimeWindow> currentMembers = null;
    for (TimeWindow w : sorted) {
      if (current == null) {
        current = w;
        currentMembers = new HashSet<>();
        currentMembers.add(w);
      } else if (current.intersects(w)) {
        current = current.cover(w);
        currentMembers.add(w);
      } else {
        covers.add(current);
        members.add(currentMembers);
        current = w;
        currentMembers = new HashSet<>();
        currentMembers.add(w);
      }
    }
    if (current != null) {
      covers.add(current);
      members.add(currentMembers);
    }
    for (int i = 0; i < covers.size(); i++) {
      if (members.get(i).size() > 1) {
        callback.merge(members.get(i), covers.get(i));
      }
    }
  }
}

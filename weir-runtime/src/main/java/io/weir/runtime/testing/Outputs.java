package io.weir.runtime.testing;

import io.weir.runtime.network.RecordWriter;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/** Recorded output and how two outputs are compared and shown in failure messages. */
final class Outputs {

  /** Elements shown of a long list in a message. */
  private static final int SHOWN = 30;

  private Outputs() {}

  /**
   * One record an operator emitted.
   *
   * @param value the record
   * @param timestamp its timestamp, or {@link RecordWriter#NO_TIMESTAMP}
   */
  record Emitted(Object value, long timestamp) {
    @Override
    public String toString() {
      return show(value) + (timestamp == RecordWriter.NO_TIMESTAMP ? "" : "@" + timestamp);
    }
  }

  static List<Object> values(List<Emitted> emitted) {
    List<Object> values = new ArrayList<>(emitted.size());
    for (Emitted e : emitted) {
      values.add(e.value());
    }
    return values;
  }

  /** Strings quoted, so that {@code "1"} and {@code 1} differ in messages. */
  static String show(Object value) {
    return value instanceof String s ? '"' + s + '"' : String.valueOf(value);
  }

  static String showList(List<?> list) {
    StringBuilder b = new StringBuilder("(").append(list.size()).append(") [");
    for (int i = 0; i < list.size() && i < SHOWN; i++) {
      b.append(i == 0 ? "" : ", ").append(shown(list.get(i)));
    }
    return b.append(list.size() > SHOWN ? ", ...]" : "]").toString();
  }

  /**
   * How {@code actual} differs from {@code expected}, in one line; null when they are equal (as
   * lists, or as multisets when not {@code ordered}).
   */
  static String difference(List<?> expected, List<?> actual, boolean ordered) {
    return ordered ? orderedDifference(expected, actual) : unorderedDifference(expected, actual);
  }

  private static String orderedDifference(List<?> expected, List<?> actual) {
    int common = Math.min(expected.size(), actual.size());
    for (int i = 0; i < common; i++) {
      if (!Objects.equals(expected.get(i), actual.get(i))) {
        return "first difference at output index "
            + i
            + ": expected "
            + shown(expected.get(i))
            + " but got "
            + shown(actual.get(i));
      }
    }
    if (expected.size() > common) {
      return "output ends after "
          + common
          + " records; missing from index "
          + common
          + ": "
          + shown(expected.get(common))
          + (expected.size() > common + 1
              ? " and " + (expected.size() - common - 1) + " more"
              : "");
    }
    if (actual.size() > common) {
      return "output has "
          + (actual.size() - common)
          + " extra records from index "
          + common
          + ", the first "
          + shown(actual.get(common));
    }
    return null;
  }

  private static String unorderedDifference(List<?> expected, List<?> actual) {
    Map<Object, Integer> counts = new HashMap<>();
    for (Object e : expected) {
      counts.merge(e, 1, Integer::sum);
    }
    List<Object> unexpected = new ArrayList<>();
    for (Object a : actual) {
      Integer left = counts.get(a);
      if (left == null || left == 0) {
        unexpected.add(a);
      } else {
        counts.put(a, left - 1);
      }
    }
    List<Object> missing = new ArrayList<>();
    counts.forEach(
        (value, left) -> {
          for (int i = 0; i < left; i++) {
            missing.add(value);
          }
        });
    if (missing.isEmpty() && unexpected.isEmpty()) {
      return null;
    }
    return "ignoring order, missing " + showList(missing) + ", unexpected " + showList(unexpected);
  }

  private static String shown(Object element) {
    return element instanceof Emitted ? element.toString() : show(element);
  }
}

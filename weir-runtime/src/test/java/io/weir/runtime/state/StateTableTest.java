package io.weir.runtime.state;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Copy-on-write of {@link StateTable}: what a snapshot froze never changes, whatever the task does
 * to the table during the upload, while blind writes copy no value and a released snapshot costs
 * nothing. Values are {@link StringBuilder}s, mutable in place as a POJO or an accumulator is.
 */
class StateTableTest {

  private static final KeyGroupRange RANGE = KeyGroupRange.of(0, 3);

  private static StateTable<Integer, StringBuilder> table() {
    return new StateTable<>(RANGE, StringBuilder::new, KeyGroupStore.Layout.OBJECTS);
  }

  private static Map<Integer, String> content(
      StateTable.Snapshot<Integer, StringBuilder> s, int kg) {
    Map<Integer, String> out = new HashMap<>();
    s.keyGroup(kg).forEach((k, v) -> out.put(k, v.toString()));
    return out;
  }

  @Test
  void blindWritesDuringAnUploadLeaveTheSnapshotAsFrozenAndCopyNoValue() {
    StateTable<Integer, StringBuilder> table = table();
    StringBuilder kept = new StringBuilder("a");
    table.put(1, 0, kept);
    table.put(2, 0, new StringBuilder("b"));
    StateTable.Snapshot<Integer, StringBuilder> snapshot = table.snapshot();

    table.put(2, 0, new StringBuilder("b2"));
    table.put(3, 0, new StringBuilder("c"));
    table.remove(1, 0);

    assertThat(content(snapshot, 0)).isEqualTo(Map.of(1, "a", 2, "b"));
    assertThat(snapshot.keyGroup(0).get(1)).as("the snapshot's value itself").isSameAs(kept);
    snapshot.release();
    assertThat(table.get(2, 0)).hasToString("b2");
    assertThat(table.get(1, 0)).isNull();
    assertThat(table.size()).isEqualTo(2);
  }

  @Test
  void aValueReadDuringAnUploadIsACopyTheTaskMayChange() {
    StateTable<Integer, StringBuilder> table = table();
    table.put(1, 0, new StringBuilder("a"));
    table.put(2, 0, new StringBuilder("b"));
    table.put(5, 1, new StringBuilder("e"));
    StateTable.Snapshot<Integer, StringBuilder> snapshot = table.snapshot();

    table.put(2, 0, new StringBuilder("b2"));
    table.get(1, 0).append("-changed");
    table.get(5, 1).append("-changed");

    assertThat(content(snapshot, 0)).isEqualTo(Map.of(1, "a", 2, "b"));
    assertThat(content(snapshot, 1)).isEqualTo(Map.of(5, "e"));
    assertThat(table.get(1, 0)).hasToString("a-changed");
    assertThat(table.get(2, 0)).hasToString("b2");
    assertThat(table.get(5, 1)).hasToString("e-changed");
  }

  @Test
  void twoSnapshotsInFlightKeepTheirOwnContent() {
    StateTable<Integer, StringBuilder> table = table();
    table.put(1, 2, new StringBuilder("a"));
    table.put(2, 2, new StringBuilder("b"));
    StateTable.Snapshot<Integer, StringBuilder> first = table.snapshot();
    // A blind write: the live map is a copy sharing the value of key 1 with the first snapshot.
    table.put(2, 2, new StringBuilder("b2"));
    StateTable.Snapshot<Integer, StringBuilder> second = table.snapshot();

    table.get(1, 2).append("!");
    table.put(3, 2, new StringBuilder("c"));

    assertThat(content(first, 2)).isEqualTo(Map.of(1, "a", 2, "b"));
    assertThat(content(second, 2)).isEqualTo(Map.of(1, "a", 2, "b2"));
    first.release();
    table.get(2, 2).append("?");
    assertThat(content(second, 2)).as("still frozen while in flight").containsEntry(2, "b2");
    second.release();
    assertThat(table.get(1, 2)).hasToString("a!");
    assertThat(table.get(2, 2)).hasToString("b2?");
  }

  @Test
  void onceReleasedReadsAndWritesCopyNothing() {
    StateTable<Integer, StringBuilder> table = table();
    StringBuilder value = new StringBuilder("a");
    table.put(1, 3, value);
    StateTable.Snapshot<Integer, StringBuilder> snapshot = table.snapshot();
    snapshot.release();

    assertThat(table.get(1, 3)).as("no deep copy").isSameAs(value);
    table.put(2, 3, new StringBuilder("b"));
    assertThat(snapshot.keyGroup(3)).as("written in place, not into a copy").containsKey(2);
  }
}

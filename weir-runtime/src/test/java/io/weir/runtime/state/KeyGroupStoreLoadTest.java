package io.weir.runtime.state;

import static io.weir.runtime.state.KeyGroupStoreAssertions.assertHolds;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.function.Supplier;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Both open-addressing stores at the highest load {@link KeyGroupStore#maxEntries} lets them reach,
 * where the probe runs are longest and removal by backward shift has the most to move: held just
 * below each doubling while keys leave and come back, they stay equal to a {@link HashMap}.
 */
class KeyGroupStoreLoadTest {

  @ParameterizedTest
  @ValueSource(strings = {"longs", "objects"})
  void holdsAtItsHighestLoadWhileKeysLeaveAndReturn(String layout) {
    Supplier<KeyGroupStore<Long, Long>> stores =
        layout.equals("longs")
            ? () -> KeyGroupStore.create(KeyGroupStore.Layout.LONG_KEYS_LONG_VALUES, null)
            : () -> KeyGroupStore.create(KeyGroupStore.Layout.OBJECTS, null);
    for (int capacity = 16; capacity <= 4096; capacity *= 4) {
      Random random = new Random(capacity);
      KeyGroupStore<Long, Long> store = stores.get();
      Map<Long, Long> expected = new HashMap<>();
      List<Long> present = new ArrayList<>();
      int full = KeyGroupStore.maxEntries(capacity);
      // Keys a multiple of 1024 apart share their low bits: long runs, whatever the hash mixes.
      for (long k = 0; present.size() < full; k++) {
        long key = k * 1024 * (random.nextBoolean() ? 1 : -1);
        if (!expected.containsKey(key)) {
          store.put(key, key);
          expected.put(key, key);
          present.add(key);
        }
      }
      for (int op = 0; op < 20 * capacity; op++) {
        int at = random.nextInt(present.size());
        long leaving = present.get(at);
        store.remove(leaving);
        expected.remove(leaving);
        assertThat(store.get(leaving)).isNull();
        long arriving = random.nextInt(8 * capacity) * 1024L;
        if (expected.containsKey(arriving)) {
          arriving = leaving;
        }
        present.set(at, arriving);
        store.put(arriving, (long) op);
        expected.put(arriving, (long) op);
        assertThat(store.get(arriving)).isEqualTo((long) op);
      }
      assertHolds(store, expected);
      assertThat(store.size()).isEqualTo(full);
    }
  }
}

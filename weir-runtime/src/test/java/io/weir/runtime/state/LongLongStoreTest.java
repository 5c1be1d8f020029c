package io.weir.runtime.state;

import static io.weir.runtime.state.KeyGroupStoreAssertions.assertHolds;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashMap;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * {@link LongLongStore} against a {@link HashMap} under random puts, overwrites and removes
 * (removal by backward shift is where open addressing goes wrong), with the keys its slots treat
 * specially, and its copies independent of the original.
 */
class LongLongStoreTest {

  @Test
  void behavesAsAHashMapUnderRandomOperations() {
    for (long seed = 0; seed < 20; seed++) {
      Random random = new Random(seed);
      // A small key space makes collisions, overwrites and removes of present keys common.
      int keySpace = 1 + random.nextInt(2000);
      LongLongStore store = new LongLongStore();
      Map<Long, Long> expected = new HashMap<>();
      for (int op = 0; op < 20_000; op++) {
        long key =
            switch (random.nextInt(20)) {
              case 0 -> Long.MIN_VALUE;
              case 1 -> Long.MAX_VALUE;
              case 2 -> 0L;
              default -> random.nextInt(keySpace) * (random.nextBoolean() ? 1L : -1024L);
            };
        if (random.nextInt(3) == 0) {
          store.remove(key);
          expected.remove(key);
        } else {
          long value = random.nextLong();
          store.put(key, value);
          expected.put(key, value);
        }
        assertThat(store.get(key)).isEqualTo(expected.get(key));
      }
      assertHolds(store, expected);
      for (Long key : expected.keySet().toArray(new Long[0])) {
        store.remove(key);
        expected.remove(key);
      }
      assertHolds(store, expected);
    }
  }

  @Test
  void aCopyIsIndependentOfTheOriginal() {
    LongLongStore store = new LongLongStore();
    for (long k = -100; k < 100; k++) {
      store.put(k, k * 10);
    }
    store.put(Long.MIN_VALUE, 7L);
    Map<Long, Long> frozen = new HashMap<>(store.asMap());
    KeyGroupStore<Long, Long> copy = store.copy();
    for (long k = -100; k < 100; k += 2) {
      copy.remove(k);
      copy.put(k + 1, -1L);
    }
    copy.remove(Long.MIN_VALUE);
    copy.put(1000L, 1L);
    assertHolds(store, frozen);
    assertThat(copy.size()).isEqualTo(101);
    assertThat(copy.get(Long.MIN_VALUE)).isNull();
  }
}

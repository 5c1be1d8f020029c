package io.weir.runtime.state;

import static io.weir.runtime.state.KeyGroupStoreAssertions.assertHolds;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashMap;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * {@link OpenHashStore} against a {@link HashMap} under random puts, overwrites and removes
 * (removal by backward shift is where open addressing goes wrong), with keys whose hash codes
 * collide, and its copies independent of the original while sharing the values.
 */
class OpenHashStoreTest {

  /** A key with a chosen hash code, so that many keys share one. */
  record Key(int id, int hash) {
    @Override
    public int hashCode() {
      return hash;
    }

    @Override
    public boolean equals(Object o) {
      return o instanceof Key k && k.id == id;
    }
  }

  @Test
  void behavesAsAHashMapUnderRandomOperations() {
    for (long seed = 0; seed < 20; seed++) {
      Random random = new Random(seed);
      // A small key space makes overwrites and removes of present keys common; few distinct hash
      // codes make long probe runs of keys that differ only by equals.
      int keySpace = 1 + random.nextInt(2000);
      int hashes = 1 + random.nextInt(seed % 2 == 0 ? 8 : 5000);
      OpenHashStore<Key, Long> store = new OpenHashStore<>();
      Map<Key, Long> expected = new HashMap<>();
      for (int op = 0; op < 20_000; op++) {
        int id = random.nextInt(keySpace);
        Key key = new Key(id, id % hashes);
        if (random.nextInt(3) == 0) {
          store.remove(key);
          expected.remove(key);
        } else {
          long value = random.nextLong();
          store.put(key, value);
          expected.put(key, value);
        }
        assertThat(store.get(new Key(id, id % hashes))).isEqualTo(expected.get(key));
      }
      assertHolds(store, expected);
      for (Key key : expected.keySet().toArray(new Key[0])) {
        store.remove(key);
        expected.remove(key);
      }
      assertHolds(store, expected);
    }
  }

  @Test
  void aCopyIsIndependentOfTheOriginalAndSharesItsValues() {
    OpenHashStore<String, StringBuilder> store = new OpenHashStore<>();
    for (int k = 0; k < 200; k++) {
      store.put("k" + k, new StringBuilder("v" + k));
    }
    Map<String, StringBuilder> frozen = new HashMap<>(store.asMap());
    KeyGroupStore<String, StringBuilder> copy = store.copy();
    assertThat(copy.get("k7")).isSameAs(store.get("k7"));
    for (int k = 0; k < 200; k += 2) {
      copy.remove("k" + k);
      copy.put("k" + (k + 1), new StringBuilder("changed"));
    }
    for (int k = 200; k < 1000; k++) {
      copy.put("k" + k, new StringBuilder()); // grows the copy's arrays
    }
    assertHolds(store, frozen);
    assertThat(copy.size()).isEqualTo(900);

    copy.copyValues(v -> new StringBuilder(v));
    assertThat(copy.get("k201")).isNotSameAs(store.get("k201"));
    copy.get("k301").append("!");
    assertThat(copy.get("k301")).hasToString("!");
    assertThat(store.get("k301")).isNull();
    assertThat(copy.get("k1")).hasToString("changed");
    assertThat(store.get("k1")).hasToString("v1");
  }
}

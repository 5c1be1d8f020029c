package io.weir.runtime.state;

import static io.weir.runtime.state.KeyGroupStoreAssertions.assertHolds;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashMap;
import java.util.Map;
import java.util.Random;
import java.util.function.LongSupplier;
import org.junit.jupiter.api.Test;

/**
 * {@link LongLongStore} against a {@link HashMap} under random puts, overwrites and removes
 * (removal by backward shift is where open addressing goes wrong), with the keys and values its
 * slots treat specially, in both widths and across the widening between them, and its copies
 * independent of the original.
 */
class LongLongStoreTest {

  @Test
  void behavesAsAHashMapWithAnyKeysAndValues() {
    for (long seed = 0; seed < 20; seed++) {
      Random random = new Random(seed);
      int keySpace = 1 + random.nextInt(2000);
      LongLongStore store = new LongLongStore();
      runRandomOperations(
          random, store, new HashMap<>(), () -> anyKey(random, keySpace), random::nextLong);
      assertThat(store.isNarrow()).isFalse();
    }
  }

  @Test
  void staysNarrowWhileKeysAndValuesFitAnInt() {
    for (long seed = 0; seed < 20; seed++) {
      Random random = new Random(seed);
      int keySpace = 1 + random.nextInt(2000);
      LongLongStore store = new LongLongStore();
      runRandomOperations(
          random, store, new HashMap<>(), () -> intKey(random, keySpace), () -> intValue(random));
      assertThat(store.isNarrow()).isTrue();
    }
  }

  @Test
  void widensMidwayWithoutLosingAnEntry() {
    for (long seed = 0; seed < 40; seed++) {
      Random random = new Random(seed);
      int keySpace = 1 + random.nextInt(2000);
      LongLongStore store = new LongLongStore();
      Map<Long, Long> expected = new HashMap<>();
      runRandomOperations(
          random, store, expected, () -> intKey(random, keySpace), () -> intValue(random));
      assertThat(store.isNarrow()).isTrue();
      KeyGroupStore<Long, Long> narrowCopy = store.copy();
      Map<Long, Long> beforeWidening = new HashMap<>(expected);
      long[] wideKeys = {
        Integer.MIN_VALUE, Integer.MAX_VALUE + 1L, Long.MAX_VALUE, -(1L << 40), Long.MIN_VALUE + 1
      };
      long[] wideValues = {
        Integer.MAX_VALUE + 1L, Integer.MIN_VALUE - 1L, Long.MAX_VALUE, Long.MIN_VALUE, 1L << 40
      };
      // Half the seeds widen by a key, half by a value.
      long key =
          seed % 2 == 0 ? wideKeys[random.nextInt(wideKeys.length)] : random.nextInt(keySpace);
      long value = seed % 2 == 0 ? 5L : wideValues[random.nextInt(wideValues.length)];
      store.put(key, value);
      expected.put(key, value);
      assertThat(store.isNarrow()).isFalse();
      assertHolds(store, expected);
      runRandomOperations(
          random, store, expected, () -> intKey(random, keySpace), () -> intValue(random));
      assertHolds(narrowCopy, beforeWidening);
    }
  }

  private static void runRandomOperations(
      Random random,
      LongLongStore store,
      Map<Long, Long> expected,
      LongSupplier keys,
      LongSupplier values) {
    for (int op = 0; op < 20_000; op++) {
      long key = keys.getAsLong();
      if (random.nextInt(3) == 0) {
        store.remove(key);
        expected.remove(key);
      } else {
        long value = values.getAsLong();
        store.put(key, value);
        expected.put(key, value);
      }
      assertThat(store.get(key)).isEqualTo(expected.get(key));
    }
    assertHolds(store, expected);
    KeyGroupStore<Long, Long> copy = store.copy();
    Map<Long, Long> copied = new HashMap<>(expected);
    for (Long key : copied.keySet()) {
      copy.remove(key);
    }
    assertHolds(copy, Map.of());
    assertHolds(store, expected);
  }

  /** A small key space makes collisions, overwrites and removes of present keys common. */
  private static long anyKey(Random random, int keySpace) {
    return switch (random.nextInt(20)) {
      case 0 -> Long.MIN_VALUE;
      case 1 -> Long.MAX_VALUE;
      case 2 -> 0L;
      default -> random.nextInt(keySpace) * (random.nextBoolean() ? 1L : -1024L);
    };
  }

  /** Keys a narrow store holds, with the ends of the int range it keeps. */
  private static long intKey(Random random, int keySpace) {
    return switch (random.nextInt(20)) {
      case 0 -> Integer.MAX_VALUE;
      case 1 -> Integer.MIN_VALUE + 1;
      case 2 -> 0L;
      case 3 -> Long.MIN_VALUE; // kept beside the slots in either width
      default -> random.nextInt(keySpace) * (random.nextBoolean() ? 1L : -1024L);
    };
  }

  private static long intValue(Random random) {
    return switch (random.nextInt(10)) {
      case 0 -> Integer.MIN_VALUE;
      case 1 -> Integer.MAX_VALUE;
      case 2 -> -1L;
      default -> random.nextInt();
    };
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
    copy.put(1L << 40, Long.MAX_VALUE);
    assertHolds(store, frozen);
    assertThat(copy.size()).isEqualTo(102);
    assertThat(copy.get(Long.MIN_VALUE)).isNull();
    assertThat(copy.get(1L << 40)).isEqualTo(Long.MAX_VALUE);
  }
}

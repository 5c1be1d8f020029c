package io.weir.runtime.state;

import java.util.Arrays;
import java.util.Iterator;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.function.BiConsumer;
import java.util.function.UnaryOperator;

/**
 * {@code Long} keys to {@code Long} values as primitive pairs in one array: open addressing with
 * linear probing, key and value in the same slot so that a lookup touches one cache line, removal
 * by backward shift (no tombstones). {@link #FREE} marks a free slot; the key equal to it is kept
 * beside the array.
 *
 * <p>While every key and value fits in an {@code int} (ids and counts mostly do) a slot is one
 * {@code long}, the key in its high half and the value in its low half: half the memory (W1's
 * throughput did not measurably change with it, see {@code BENCHMARKS.md}). The first key or value
 * that does not fit widens the store for good to two {@code long}s per slot, at the same positions.
 */
final class LongLongStore implements KeyGroupStore<Long, Long> {

  private static final long FREE = Long.MIN_VALUE;
  private static final long LOW_HALF = 0xFFFF_FFFFL;
  private static final int MIN_CAPACITY = 16;
  private static final int ABSENT = -1;
  private static final int FREE_KEY_SLOT = -2;

  /**
   * Narrow: {@code key << 32 | value} per slot, FREE when the slot is free (its high half is {@code
   * Integer.MIN_VALUE}, a key a narrow store therefore never holds). Wide: key, value, key, value,
   * ...; a slot's key is FREE when the slot is free.
   */
  private long[] slots;

  private boolean narrow = true;
  private int mask;
  private int size;
  private boolean hasFreeKey;
  private long freeKeyValue;

  LongLongStore() {
    mask = MIN_CAPACITY - 1;
    slots = emptySlots(MIN_CAPACITY);
  }

  private LongLongStore(LongLongStore other) {
    slots = other.slots.clone();
    narrow = other.narrow;
    mask = other.mask;
    size = other.size;
    hasFreeKey = other.hasFreeKey;
    freeKeyValue = other.freeKeyValue;
  }

  private static int slotOf(long key, int mask) {
    long h = key * 0x9E3779B97F4A7C15L;
    return (int) (h ^ (h >>> 32)) & mask;
  }

  private static boolean fitsNarrowKey(long key) {
    return key == (int) key && key != Integer.MIN_VALUE;
  }

  private static boolean fitsNarrowValue(long value) {
    return value == (int) value;
  }

  @Override
  public Long get(Long key) {
    int i = find(key);
    return i == ABSENT ? null : valueOf(i);
  }

  /** {@code key}'s value, or {@code absent} if it has none. */
  long get(long key, long absent) {
    int i = find(key);
    return i == ABSENT ? absent : valueOf(i);
  }

  /** The slot holding {@code key}, {@link #FREE_KEY_SLOT} for the key equal to FREE, or ABSENT. */
  private int find(long key) {
    if (key == FREE) {
      return hasFreeKey ? FREE_KEY_SLOT : ABSENT;
    }
    long[] s = slots;
    int m = mask;
    if (narrow) {
      if (!fitsNarrowKey(key)) {
        return ABSENT;
      }
      long high = key << 32;
      for (int i = slotOf(key, m); ; i = (i + 1) & m) {
        long e = s[i];
        if ((e & ~LOW_HALF) == high) {
          return i;
        }
        if (e == FREE) {
          return ABSENT;
        }
      }
    }
    for (int i = slotOf(key, m); ; i = (i + 1) & m) {
      long k = s[2 * i];
      if (k == key) {
        return i;
      }
      if (k == FREE) {
        return ABSENT;
      }
    }
  }

  private long valueOf(int slot) {
    return slot == FREE_KEY_SLOT ? freeKeyValue : valueAt(slots, slot);
  }

  @Override
  public void put(Long key, Long value) {
    put((long) key, (long) value);
  }

  void put(long key, long value) {
    if (key == FREE) {
      if (!hasFreeKey) {
        hasFreeKey = true;
        size++;
      }
      freeKeyValue = value;
      return;
    }
    if (narrow && !(fitsNarrowKey(key) && fitsNarrowValue(value))) {
      widen();
    }
    long[] s = slots;
    int m = mask;
    if (narrow) {
      long high = key << 32;
      for (int i = slotOf(key, m); ; i = (i + 1) & m) {
        long e = s[i];
        if ((e & ~LOW_HALF) == high) {
          s[i] = high | (value & LOW_HALF);
          return;
        }
        if (e == FREE) {
          s[i] = high | (value & LOW_HALF);
          added();
          return;
        }
      }
    }
    for (int i = slotOf(key, m); ; i = (i + 1) & m) {
      long k = s[2 * i];
      if (k == key) {
        s[2 * i + 1] = value;
        return;
      }
      if (k == FREE) {
        s[2 * i] = key;
        s[2 * i + 1] = value;
        added();
        return;
      }
    }
  }

  private void added() {
    if (++size > KeyGroupStore.maxEntries(mask + 1)) {
      resize(2 * (mask + 1));
    }
  }

  @Override
  public void remove(Long key) {
    remove((long) key);
  }

  void remove(long key) {
    if (key == FREE) {
      if (hasFreeKey) {
        hasFreeKey = false;
        size--;
      }
      return;
    }
    if (narrow && !fitsNarrowKey(key)) {
      return;
    }
    long[] s = slots;
    int m = mask;
    int i = slotOf(key, m);
    while (isFree(s, i) || keyAt(s, i) != key) {
      if (isFree(s, i)) {
        return;
      }
      i = (i + 1) & m;
    }
    size--;
    // Backward shift: move later entries of the probe run into the gap where they belong.
    int gap = i;
    for (int j = (gap + 1) & m; !isFree(s, j); j = (j + 1) & m) {
      int home = slotOf(keyAt(s, j), m);
      // The entry at j may move to the gap if its home is not in (gap, j], cyclically.
      if (((j - home) & m) >= ((j - gap) & m)) {
        set(s, gap, keyAt(s, j), valueAt(s, j));
        gap = j;
      }
    }
    clear(s, gap);
  }

  /** Rewrites the slots two {@code long}s wide, each entry at the slot it had. */
  private void widen() {
    long[] old = slots;
    int capacity = mask + 1;
    narrow = false;
    slots = emptySlots(capacity);
    for (int i = 0; i < capacity; i++) {
      if (old[i] != FREE) {
        set(slots, i, old[i] >> 32, (int) old[i]);
      }
    }
  }

  private void resize(int capacity) {
    long[] old = slots;
    int oldCapacity = mask + 1;
    slots = emptySlots(capacity);
    mask = capacity - 1;
    for (int i = 0; i < oldCapacity; i++) {
      if (!isFree(old, i)) {
        long k = keyAt(old, i);
        int j = slotOf(k, mask);
        while (!isFree(slots, j)) {
          j = (j + 1) & mask;
        }
        set(slots, j, k, valueAt(old, i));
      }
    }
  }

  // Slot access in the store's current width, for everything but the lookups above.

  private long[] emptySlots(int capacity) {
    long[] s = new long[narrow ? capacity : 2 * capacity];
    Arrays.fill(s, FREE);
    return s;
  }

  private boolean isFree(long[] s, int i) {
    return narrow ? s[i] == FREE : s[2 * i] == FREE;
  }

  private long keyAt(long[] s, int i) {
    return narrow ? s[i] >> 32 : s[2 * i];
  }

  private long valueAt(long[] s, int i) {
    return narrow ? (int) s[i] : s[2 * i + 1];
  }

  private void set(long[] s, int i, long key, long value) {
    if (narrow) {
      s[i] = key << 32 | (value & LOW_HALF);
    } else {
      s[2 * i] = key;
      s[2 * i + 1] = value;
    }
  }

  private void clear(long[] s, int i) {
    s[narrow ? i : 2 * i] = FREE;
  }

  /** Whether the slots are still one {@code long} wide; for tests. */
  boolean isNarrow() {
    return narrow;
  }

  @Override
  public int size() {
    return size;
  }

  @Override
  public void forEach(BiConsumer<? super Long, ? super Long> action) {
    forEachPair(action::accept);
  }

  /** Each entry, without boxing. */
  <E extends Exception> void forEachPair(PairConsumer<E> action) throws E {
    if (hasFreeKey) {
      action.accept(FREE, freeKeyValue);
    }
    long[] s = slots;
    for (int i = 0; i <= mask; i++) {
      if (!isFree(s, i)) {
        action.accept(keyAt(s, i), valueAt(s, i));
      }
    }
  }

  /** Takes a key and its value. */
  @FunctionalInterface
  interface PairConsumer<E extends Exception> {
    void accept(long key, long value) throws E;
  }

  @Override
  public LongLongStore copy() {
    return new LongLongStore(this);
  }

  /** Values are immutable {@code Long}s (primitives here): nothing to copy. */
  @Override
  public void copyValues(UnaryOperator<Long> copier) {}

  @Override
  public Iterator<Map.Entry<Long, Long>> iterator() {
    return new Entries();
  }

  /** The entries in slot order, the key equal to FREE first. */
  private final class Entries implements Iterator<Map.Entry<Long, Long>> {
    private boolean freeKeyDone = !hasFreeKey;
    private int next = advance(0);

    private int advance(int from) {
      int i = from;
      while (i <= mask && isFree(slots, i)) {
        i++;
      }
      return i;
    }

    @Override
    public boolean hasNext() {
      return !freeKeyDone || next <= mask;
    }

    @Override
    public Map.Entry<Long, Long> next() {
      if (!freeKeyDone) {
        freeKeyDone = true;
        return Map.entry(FREE, freeKeyValue);
      }
      if (next > mask) {
        throw new NoSuchElementException();
      }
      Map.Entry<Long, Long> e = Map.entry(keyAt(slots, next), valueAt(slots, next));
      next = advance(next + 1);
      return e;
    }
  }
}

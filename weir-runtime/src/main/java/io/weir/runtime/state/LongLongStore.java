package io.weir.runtime.state;

import java.util.Arrays;
import java.util.Iterator;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.function.BiConsumer;
import java.util.function.UnaryOperator;

/**
 * {@code Long} keys to {@code Long} values as primitive pairs in one array: open addressing with
 * linear probing, key and value side by side so that a lookup touches one cache line, removal by
 * backward shift (no tombstones). {@link #FREE} marks a free slot; the key equal to it is kept
 * beside the array.
 */
final class LongLongStore implements KeyGroupStore<Long, Long> {

  private static final long FREE = Long.MIN_VALUE;
  private static final int MIN_CAPACITY = 16;

  /** key, value, key, value, ...; a slot's key is FREE when the slot is free. */
  private long[] slots;

  private int mask;
  private int size;
  private boolean hasFreeKey;
  private long freeKeyValue;

  LongLongStore() {
    this(MIN_CAPACITY);
  }

  private LongLongStore(int capacity) {
    slots = new long[2 * capacity];
    Arrays.fill(slots, FREE);
    mask = capacity - 1;
  }

  private LongLongStore(LongLongStore other) {
    slots = other.slots.clone();
    mask = other.mask;
    size = other.size;
    hasFreeKey = other.hasFreeKey;
    freeKeyValue = other.freeKeyValue;
  }

  private static int slotOf(long key, int mask) {
    long h = key * 0x9E3779B97F4A7C15L;
    return (int) (h ^ (h >>> 32)) & mask;
  }

  @Override
  public Long get(Long boxedKey) {
    long key = boxedKey;
    if (key == FREE) {
      return hasFreeKey ? freeKeyValue : null;
    }
    long[] s = slots;
    int m = mask;
    for (int i = slotOf(key, m); ; i = (i + 1) & m) {
      long k = s[2 * i];
      if (k == key) {
        return s[2 * i + 1];
      }
      if (k == FREE) {
        return null;
      }
    }
  }

  @Override
  public void put(Long boxedKey, Long boxedValue) {
    long key = boxedKey;
    long value = boxedValue;
    if (key == FREE) {
      if (!hasFreeKey) {
        hasFreeKey = true;
        size++;
      }
      freeKeyValue = value;
      return;
    }
    long[] s = slots;
    int m = mask;
    for (int i = slotOf(key, m); ; i = (i + 1) & m) {
      long k = s[2 * i];
      if (k == key) {
        s[2 * i + 1] = value;
        return;
      }
      if (k == FREE) {
        s[2 * i] = key;
        s[2 * i + 1] = value;
        if (++size > KeyGroupStore.maxEntries(mask + 1)) {
          resize(2 * (mask + 1));
        }
        return;
      }
    }
  }

  @Override
  public void remove(Long boxedKey) {
    long key = boxedKey;
    if (key == FREE) {
      if (hasFreeKey) {
        hasFreeKey = false;
        size--;
      }
      return;
    }
    long[] s = slots;
    int m = mask;
    int i = slotOf(key, m);
    while (s[2 * i] != key) {
      if (s[2 * i] == FREE) {
        return;
      }
      i = (i + 1) & m;
    }
    size--;
    // Backward shift: move later entries of the probe run into the gap where they belong.
    int gap = i;
    for (int j = (gap + 1) & m; s[2 * j] != FREE; j = (j + 1) & m) {
      int home = slotOf(s[2 * j], m);
      // The entry at j may move to the gap if its home is not in (gap, j], cyclically.
      if (((j - home) & m) >= ((j - gap) & m)) {
        s[2 * gap] = s[2 * j];
        s[2 * gap + 1] = s[2 * j + 1];
        gap = j;
      }
    }
    s[2 * gap] = FREE;
  }

  private void resize(int capacity) {
    long[] old = slots;
    slots = new long[2 * capacity];
    Arrays.fill(slots, FREE);
    mask = capacity - 1;
    for (int i = 0; i < old.length; i += 2) {
      long k = old[i];
      if (k != FREE) {
        int j = slotOf(k, mask);
        while (slots[2 * j] != FREE) {
          j = (j + 1) & mask;
        }
        slots[2 * j] = k;
        slots[2 * j + 1] = old[i + 1];
      }
    }
  }

  @Override
  public int size() {
    return size;
  }

  @Override
  public void forEach(BiConsumer<? super Long, ? super Long> action) {
    if (hasFreeKey) {
      action.accept(FREE, freeKeyValue);
    }
    long[] s = slots;
    for (int i = 0; i < s.length; i += 2) {
      if (s[i] != FREE) {
        action.accept(s[i], s[i + 1]);
      }
    }
  }

  @Override
  public KeyGroupStore<Long, Long> copy() {
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
      while (i < slots.length && slots[i] == FREE) {
        i += 2;
      }
      return i;
    }

    @Override
    public boolean hasNext() {
      return !freeKeyDone || next < slots.length;
    }

    @Override
    public Map.Entry<Long, Long> next() {
      if (!freeKeyDone) {
        freeKeyDone = true;
        return Map.entry(FREE, freeKeyValue);
      }
      if (next >= slots.length) {
        throw new NoSuchElementException();
      }
      Map.Entry<Long, Long> e = Map.entry(slots[next], slots[next + 1]);
      next = advance(next + 2);
      return e;
    }
  }
}

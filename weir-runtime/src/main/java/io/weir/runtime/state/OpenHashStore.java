package io.weir.runtime.state;

import java.util.AbstractMap;
import java.util.Iterator;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Objects;
import java.util.function.BiConsumer;
import java.util.function.UnaryOperator;

/**
 * Any key to any value in open addressing with linear probing: keys and values side by side in one
 * array, each slot's mixed hash in another, removal by backward shift (no tombstones). A null key
 * marks a free slot; keyed state has no null keys.
 *
 * <p>Against a {@link java.util.HashMap}: no node object per entry (its 32 bytes, and a pointer to
 * follow on every access), and a copy for copy-on-write is two array clones rather than a new node
 * per entry, which the garbage collector then has to trace and promote. A lookup compares the
 * stored hash before it touches a key.
 */
final class OpenHashStore<K, V> implements KeyGroupStore<K, V> {

  private static final int MIN_CAPACITY = 16;

  /** key, value, key, value, ...; a slot's key is null when the slot is free. */
  private Object[] slots;

  /** The mixed hash of each slot's key. */
  private int[] hashes;

  private int mask;
  private int size;

  OpenHashStore() {
    this(MIN_CAPACITY);
  }

  private OpenHashStore(int capacity) {
    slots = new Object[2 * capacity];
    hashes = new int[capacity];
    mask = capacity - 1;
  }

  private OpenHashStore(OpenHashStore<K, V> other) {
    slots = other.slots.clone();
    hashes = other.hashes.clone();
    mask = other.mask;
    size = other.size;
  }

  private static int mix(Object key) {
    int h = key.hashCode() * 0x9E3779B9;
    return h ^ (h >>> 16);
  }

  /** The slot holding {@code key}, or the free slot ending its probe run, as -1 - slot. */
  private int find(Object key, int hash) {
    Object[] s = slots;
    int[] hs = hashes;
    int m = mask;
    for (int i = hash & m; ; i = (i + 1) & m) {
      Object k = s[2 * i];
      if (k == null) {
        return -1 - i;
      }
      if (hs[i] == hash && (k == key || k.equals(key))) {
        return i;
      }
    }
  }

  @Override
  @SuppressWarnings("unchecked")
  public V get(K key) {
    int i = find(key, mix(key));
    return i >= 0 ? (V) slots[2 * i + 1] : null;
  }

  @Override
  public void put(K key, V value) {
    Objects.requireNonNull(key, "key");
    int hash = mix(key);
    int i = find(key, hash);
    if (i >= 0) {
      slots[2 * i + 1] = value;
      return;
    }
    int free = -1 - i;
    slots[2 * free] = key;
    slots[2 * free + 1] = value;
    hashes[free] = hash;
    if (++size > KeyGroupStore.maxEntries(mask + 1)) {
      resize(2 * (mask + 1));
    }
  }

  @Override
  public void remove(K key) {
    int i = find(key, mix(key));
    if (i < 0) {
      return;
    }
    size--;
    Object[] s = slots;
    int[] hs = hashes;
    int m = mask;
    // Backward shift: move later entries of the probe run into the gap where they belong.
    int gap = i;
    for (int j = (gap + 1) & m; s[2 * j] != null; j = (j + 1) & m) {
      int home = hs[j] & m;
      // The entry at j may move to the gap if its home is not in (gap, j], cyclically.
      if (((j - home) & m) >= ((j - gap) & m)) {
        s[2 * gap] = s[2 * j];
        s[2 * gap + 1] = s[2 * j + 1];
        hs[gap] = hs[j];
        gap = j;
      }
    }
    s[2 * gap] = null;
    s[2 * gap + 1] = null;
  }

  private void resize(int capacity) {
    Object[] old = slots;
    int[] oldHashes = hashes;
    slots = new Object[2 * capacity];
    hashes = new int[capacity];
    mask = capacity - 1;
    for (int i = 0; i < oldHashes.length; i++) {
      Object k = old[2 * i];
      if (k != null) {
        int j = oldHashes[i] & mask;
        while (slots[2 * j] != null) {
          j = (j + 1) & mask;
        }
        slots[2 * j] = k;
        slots[2 * j + 1] = old[2 * i + 1];
        hashes[j] = oldHashes[i];
      }
    }
  }

  @Override
  public int size() {
    return size;
  }

  @Override
  @SuppressWarnings("unchecked")
  public void forEach(BiConsumer<? super K, ? super V> action) {
    Object[] s = slots;
    for (int i = 0; i < s.length; i += 2) {
      if (s[i] != null) {
        action.accept((K) s[i], (V) s[i + 1]);
      }
    }
  }

  @Override
  public KeyGroupStore<K, V> copy() {
    return new OpenHashStore<>(this);
  }

  @Override
  @SuppressWarnings("unchecked")
  public void copyValues(UnaryOperator<V> copier) {
    Object[] s = slots;
    for (int i = 0; i < s.length; i += 2) {
      if (s[i] != null) {
        s[i + 1] = copier.apply((V) s[i + 1]);
      }
    }
  }

  @Override
  public Iterator<Map.Entry<K, V>> iterator() {
    return new Entries();
  }

  /** The entries in slot order. */
  private final class Entries implements Iterator<Map.Entry<K, V>> {
    private int next = advance(0);

    private int advance(int from) {
      int i = from;
      while (i < slots.length && slots[i] == null) {
        i += 2;
      }
      return i;
    }

    @Override
    public boolean hasNext() {
      return next < slots.length;
    }

    @Override
    @SuppressWarnings("unchecked")
    public Map.Entry<K, V> next() {
      if (next >= slots.length) {
        throw new NoSuchElementException();
      }
      Map.Entry<K, V> e =
          new AbstractMap.SimpleImmutableEntry<>((K) slots[next], (V) slots[next + 1]);
      next = advance(next + 2);
      return e;
    }
  }
}

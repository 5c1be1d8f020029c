package io.weir.state.rocksdb;

import java.util.Arrays;

/**
 * Entries keyed by column and RocksDB key (key group and serialized key, {@link
 * RocksDBKeyedStateBackend#currentKeyBytes()}), each with a value (the serialized bytes RocksDB
 * would hold, or null), in parallel arrays found through an open-addressing table with linear
 * probing, at most half full: the write cache's entries and the writes on their way from it to
 * RocksDB. A cell holds an entry's hash beside its index, so that a probe compares hashes within
 * the table's own cache lines and touches an entry only when its hash matches: a key that is not
 * there (every blind write over more keys than the write cache holds) costs the one or two cache
 * lines of its probe, not one more per entry passed. A lookup allocates nothing. A key is the
 * backend's current-key array itself (a fresh copy per {@code setCurrentKey}, never changed), so
 * the key just set matches by identity and an entry copies no key. Task thread only.
 */
abstract class RocksDBEntryTable {

  // Entry i, for i < size: its column, RocksDB key, value and mixed hash.
  RocksDBColumn[] columns = new RocksDBColumn[0];
  byte[][] keys = new byte[0][];
  byte[][] values = new byte[0][];
  int[] hashes = new int[0];
  int size;

  /** By hash: an entry's hash in the upper 32 bits, its index + 1 in the lower; 0 when free. */
  private long[] table = new long[0];

  private int mask;

  /** The hash of a key whose {@link RocksDBKeyedStateBackend#currentKeyHash()} is keyHash. */
  static int hash(RocksDBColumn column, int keyHash) {
    int h = keyHash * 0x9E3779B9 + column.hashSeed;
    h ^= h >>> 16;
    h *= 0x85EBCA6B;
    return h ^ (h >>> 13);
  }

  /** Room for {@code capacity} entries; subclasses grow their own per-entry arrays alongside. */
  void allocate(int capacity) {
    columns = Arrays.copyOf(columns, capacity);
    keys = Arrays.copyOf(keys, capacity);
    values = Arrays.copyOf(values, capacity);
    hashes = Arrays.copyOf(hashes, capacity);
    int cells = Integer.highestOneBit(Math.max(2, capacity) * 2 - 1) << 1;
    table = new long[cells];
    mask = cells - 1;
    for (int i = 0; i < size; i++) {
      link(i);
    }
  }

  /** The entry of {@code key} in {@code column}, or -1. */
  final int find(RocksDBColumn column, byte[] key, int hash) {
    for (int cell = hash & mask; ; cell = (cell + 1) & mask) {
      long t = table[cell];
      if (t == 0) {
        return -1;
      }
      if ((int) (t >>> 32) == hash) {
        int e = (int) t - 1;
        if (columns[e] == column && (keys[e] == key || Arrays.equals(keys[e], key))) {
          return e;
        }
      }
    }
  }

  /** Sets entry {@code e} (whose index must be below the capacity) and makes it findable. */
  final void link(int e, RocksDBColumn column, byte[] key, int hash, byte[] value) {
    columns[e] = column;
    keys[e] = key;
    values[e] = value;
    hashes[e] = hash;
    link(e);
  }

  private void link(int e) {
    int cell = hashes[e] & mask;
    while (table[cell] != 0) {
      cell = (cell + 1) & mask;
    }
    table[cell] = ((long) hashes[e] << 32) | (e + 1);
  }

  /** Makes entry {@code e} unfindable, shifting back the entries probed past its cell. */
  final void unlink(int e) {
    int free = hashes[e] & mask;
    while ((int) table[free] != e + 1) {
      free = (free + 1) & mask;
    }
    for (int cell = (free + 1) & mask; table[cell] != 0; cell = (cell + 1) & mask) {
      int home = (int) (table[cell] >>> 32) & mask;
      // The entry at cell may move to free unless its home lies cyclically in (free, cell].
      boolean stays = free <= cell ? free < home && home <= cell : free < home || home <= cell;
      if (!stays) {
        table[free] = table[cell];
        free = cell;
      }
    }
    table[free] = 0;
  }

  /** Forgets every entry, keeping the capacity. */
  void clear() {
    Arrays.fill(columns, 0, size, null);
    Arrays.fill(keys, 0, size, null);
    Arrays.fill(values, 0, size, null);
    Arrays.fill(table, 0);
    size = 0;
  }

  final int size() {
    return size;
  }
}

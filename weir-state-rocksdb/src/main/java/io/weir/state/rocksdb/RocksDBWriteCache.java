package io.weir.state.rocksdb;

import java.util.Arrays;
import org.rocksdb.RocksDBException;

/**
 * A bounded write-back cache in front of RocksDB for the states that hold one whole value per key
 * (value, reducing and aggregating state) and for the entries of map states read and written one at
 * a time, as Kafka Streams' record cache is in front of its stores: a key read or written again is
 * answered from the heap, and RocksDB sees an update only when its entry is evicted or the cache is
 * flushed before a snapshot. A hot key costs no JNI call and no RocksDB lookup per record.
 *
 * <p>Entries are keyed by column and RocksDB key (key group and serialized key, {@link
 * RocksDBKeyedStateBackend#currentKeyBytes()}) and hold the value's serialized bytes, as RocksDB
 * would: a read still deserializes a fresh copy, so changing a returned object without {@code
 * update} changes nothing, exactly as without the cache. A clean entry is what RocksDB holds, or
 * will once the pending writes are written (null: the key has no value there); a dirty one is newer
 * (null: a tombstone, the key was cleared). Reads that miss are cached clean, so a key read and
 * then written (a count) reads RocksDB once.
 *
 * <p>At most {@code maxEntries} entries. A read that misses a full cache evicts one chosen by CLOCK
 * (a second chance for each entry used since the hand last passed it, an approximation of least
 * recently used without a list to relink on every hit), handing it to the pending writes first if
 * it is dirty. A write or clear that misses a full cache goes to the pending writes instead,
 * without entering the cache (write-around, as a CPU cache's no-write-allocate): a blind write
 * saves no RocksDB read, so over more keys than the cache holds (a state written without being
 * read) admitting it would only trade one RocksDB write for another, that of the entry it evicts,
 * and churn the heap with entries that die young. The pending writes ({@link RocksDBPendingWrites})
 * reach RocksDB a write batch at a time, and a read that misses the cache looks there before
 * RocksDB. {@link #flush} writes the pending writes, then every dirty entry, and keeps the entries,
 * clean, so the cache stays warm across checkpoints.
 *
 * <p>The entries are a {@link RocksDBEntryTable}: the hit path allocates nothing. Values of the
 * same length are overwritten in place. Task thread only.
 */
final class RocksDBWriteCache extends RocksDBEntryTable implements SingleValueStore {

  /** Entry flags. */
  private static final byte DIRTY = 1;

  private static final byte REFERENCED = 2;

  private static final int INITIAL_CAPACITY = 64;

  private final RocksDBKeyedStateBackend<?> backend;
  private final int maxEntries;
  private final RocksDBPendingWrites pending;

  private byte[] flags = new byte[0];
  private int dirtyEntries;

  /** The dirty entries' indexes at a flush; reused. */
  private int[] dirty = new int[0];

  /** Where CLOCK looks for its next victim. */
  private int hand;

  private long hits;
  private long misses;
  private long evictions;
  private long writesAround;

  RocksDBWriteCache(RocksDBKeyedStateBackend<?> backend, int maxEntries) {
    if (maxEntries <= 0) {
      throw new IllegalArgumentException(
          RocksDBOptions.WRITE_CACHE_SIZE.key() + " must be positive here, not " + maxEntries);
    }
    this.backend = backend;
    this.maxEntries = maxEntries;
    this.pending = new RocksDBPendingWrites(backend);
    allocate(Math.min(maxEntries, INITIAL_CAPACITY));
  }

  @Override
  void allocate(int capacity) {
    super.allocate(capacity);
    flags = Arrays.copyOf(flags, capacity);
  }

  /** A new entry for the current key in {@code column}, clean and without a value. */
  private int insert(RocksDBColumn column, byte[] key, int hash) throws RocksDBException {
    int e;
    if (size < maxEntries) {
      if (size == keys.length) {
        allocate((int) Math.min(maxEntries, 2L * size));
      }
      e = size++;
    } else {
      e = victim();
      evict(e);
    }
    link(e, column, key, hash, null);
    flags[e] = 0;
    return e;
  }

  /** CLOCK: the first entry from the hand not used since the hand last passed it. */
  private int victim() {
    while (true) {
      int e = hand;
      hand = hand + 1 == size ? 0 : hand + 1;
      if ((flags[e] & REFERENCED) == 0) {
        return e;
      }
      flags[e] &= ~REFERENCED;
    }
  }

  /**
   * Hands entry {@code e} to the pending writes if it is dirty (its value array with it) and takes
   * it out of the table.
   */
  private void evict(int e) throws RocksDBException {
    if ((flags[e] & DIRTY) != 0) {
      pending.put(columns[e], keys[e], hashes[e], values[e]);
      flags[e] &= ~DIRTY;
      dirtyEntries--;
    }
    unlink(e);
    evictions++;
  }

  private void markDirty(int e) {
    if ((flags[e] & DIRTY) == 0) {
      dirtyEntries++;
    }
    flags[e] |= DIRTY | REFERENCED;
  }

  @Override
  public byte[] get(RocksDBColumn column) throws RocksDBException {
    return get(column, backend.currentKeyBytes(), backend.currentKeyHash());
  }

  @Override
  public byte[] get(RocksDBColumn column, byte[] key, int keyHash) throws RocksDBException {
    int hash = hash(column, keyHash);
    int e = find(column, key, hash);
    if (e >= 0) {
      hits++;
      flags[e] |= REFERENCED;
      // The same bytes; with the current key's own array the update that follows matches by
      // identity.
      keys[e] = key;
      return values[e];
    }
    misses++;
    int p = pending.find(column, key, hash);
    // A copy of a pending value: the entry's array may be overwritten in place by an update.
    byte[] stored =
        p >= 0
            ? (pending.values[p] == null ? null : pending.values[p].clone())
            : backend.db.get(column.handle, backend.readOptions, key);
    e = insert(column, key, hash);
    values[e] = stored;
    return stored;
  }

  /**
   * The current key's entry in {@code column} for a write, inserted if the cache has room; -1 when
   * the write missed a full cache and goes to the pending writes (counted in {@link
   * #writesAround}).
   */
  private int entryForWrite(RocksDBColumn column, byte[] key, int hash) throws RocksDBException {
    int e = find(column, key, hash);
    if (e >= 0) {
      return e;
    }
    if (size == maxEntries) {
      writesAround++;
      return -1;
    }
    return insert(column, key, hash);
  }

  @Override
  public void put(RocksDBColumn column, byte[] value, int length) throws RocksDBException {
    put(column, backend.currentKeyBytes(), backend.currentKeyHash(), value, length);
  }

  @Override
  public void put(RocksDBColumn column, byte[] key, int keyHash, byte[] value, int length)
      throws RocksDBException {
    int hash = hash(column, keyHash);
    int e = entryForWrite(column, key, hash);
    if (e < 0) {
      pending.put(column, key, hash, Arrays.copyOf(value, length));
      return;
    }
    byte[] cached = values[e];
    if (cached != null && cached.length == length) {
      System.arraycopy(value, 0, cached, 0, length);
    } else {
      values[e] = Arrays.copyOf(value, length);
    }
    markDirty(e);
  }

  @Override
  public void delete(RocksDBColumn column) throws RocksDBException {
    delete(column, backend.currentKeyBytes(), backend.currentKeyHash());
  }

  @Override
  public void delete(RocksDBColumn column, byte[] key, int keyHash) throws RocksDBException {
    int hash = hash(column, keyHash);
    int e = entryForWrite(column, key, hash);
    if (e < 0) {
      pending.put(column, key, hash, null);
      return;
    }
    values[e] = null;
    markDirty(e);
  }

  @Override
  public void flush() throws RocksDBException {
    int n = 0;
    if (dirty.length < dirtyEntries) {
      dirty = new int[keys.length];
    }
    for (int e = 0; n < dirtyEntries && e < size; e++) {
      if ((flags[e] & DIRTY) != 0) {
        dirty[n++] = e;
      }
    }
    // After the pending writes: an entry's key had none in the cache when it went to them, and
    // every write since went to the entry.
    pending.writeWithNewer(this, dirty, n);
    // Only now: a batch that failed leaves every entry dirty, and writing one twice is harmless.
    for (int k = 0; k < n; k++) {
      flags[dirty[k]] &= ~DIRTY;
    }
    dirtyEntries = 0;
  }

  @Override
  public void discard() {
    clear();
    pending.clear();
    dirtyEntries = 0;
    hand = 0;
  }

  int dirtyEntries() {
    return dirtyEntries;
  }

  long hits() {
    return hits;
  }

  long misses() {
    return misses;
  }

  long evictions() {
    return evictions;
  }

  /** Writes waiting in the pending writes. */
  int pendingWrites() {
    return pending.size();
  }

  /** Writes and clears that missed the full cache and went to the pending writes. */
  long writesAround() {
    return writesAround;
  }
}

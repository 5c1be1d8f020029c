package io.weir.state.rocksdb;

import io.weir.api.typeutils.DataInputDeserializer;
import io.weir.api.typeutils.DataOutputSerializer;
import io.weir.runtime.state.KeyGroupRangeAssignment;
import io.weir.runtime.state.TimerQueue;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Arrays;
import java.util.TreeSet;
import org.rocksdb.ReadOptions;
import org.rocksdb.RocksDBException;
import org.rocksdb.RocksIterator;
import org.rocksdb.Slice;

/**
 * Timers in a column family of the RocksDB backend, so that millions of timers do not live on the
 * heap. Keys are {@code keyGroup:2 | timestamp:8 | key}, with the timestamp's sign bit flipped so
 * that byte order is time order: within a key group the first entry is the earliest timer.
 *
 * <p>Each key group keeps its earliest timers on the heap as well ({@link HeadCache}, at most
 * {@link RocksDBOptions#TIMER_CACHE_SIZE}), written through to RocksDB. So a timer that is
 * registered again (a window operator registers its window's timer for every element) is answered
 * from the heap, a poll is a delete and no seek, and RocksDB is read only when a key group's cache
 * runs dry: then from where its last timer was taken, past the tombstones of the timers fired
 * before (a seek from the key group's start would step over every one of them, each poll again).
 * What is in RocksDB is what a checkpoint holds; the cache is rebuilt from it when the queue is
 * created.
 */
final class RocksDBTimerQueue<K> implements TimerQueue<K> {

  private static final byte[] EMPTY = new byte[0];

  private final RocksDBKeyedStateBackend<K> backend;
  private final RocksDBColumn column;
  private final int firstKeyGroup;
  private final HeadCache[] caches;
  private final int cacheSize;

  /** Per key group of the range: its earliest timestamp, or Long.MAX_VALUE when it has none. */
  private final long[] heads;

  private final DataOutputSerializer out = new DataOutputSerializer(64);
  private final DataInputDeserializer in = new DataInputDeserializer();

  /**
   * The earliest timers of one key group. Invariant: every timer of the key group in RocksDB that
   * sorts at or below the last cached one is cached; when {@code complete}, every timer of the key
   * group is; the cache is never empty unless it is complete.
   */
  private static final class HeadCache {
    final TreeSet<byte[]> timers = new TreeSet<>(Arrays::compareUnsigned);
    boolean complete;

    /**
     * No timer of the key group in RocksDB sorts below this key (null: unknown): a load's start.
     */
    byte[] floor;

    boolean covers(byte[] rocksKey) {
      return complete || Arrays.compareUnsigned(rocksKey, timers.last()) <= 0;
    }
  }

  RocksDBTimerQueue(RocksDBKeyedStateBackend<K> backend, RocksDBColumn column, int cacheSize) {
    if (cacheSize <= 0) {
      throw new IllegalArgumentException(
          RocksDBOptions.TIMER_CACHE_SIZE.key() + " must be positive, not " + cacheSize);
    }
    this.cacheSize = cacheSize;
    this.backend = backend;
    this.column = column;
    this.firstKeyGroup = backend.range.startKeyGroup();
    int groups = backend.range.getNumberOfKeyGroups();
    this.caches = new HeadCache[groups];
    this.heads = new long[groups];
    for (int i = 0; i < groups; i++) {
      caches[i] = new HeadCache();
      load(i);
    }
  }

  private byte[] timerKey(long timestamp, K key, int keyGroup) {
    out.clear();
    out.writeShort(keyGroup);
    out.writeLong(timestamp ^ Long.MIN_VALUE);
    try {
      backend.keySerializer.serialize(key, out);
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot serialize the key of a timer: " + key, e);
    }
    return out.getCopyOfBuffer();
  }

  private static long timestampOf(byte[] key) {
    long flipped = 0;
    for (int i = RocksDBKeyedStateBackend.KEY_GROUP_BYTES;
        i < RocksDBKeyedStateBackend.KEY_GROUP_BYTES + 8;
        i++) {
      flipped = (flipped << 8) | (key[i] & 0xff);
    }
    return flipped ^ Long.MIN_VALUE;
  }

  /**
   * Fills the empty cache of key group index {@code i} from RocksDB: up to {@code cacheSize} timers
   * from its floor, never reading past the key group's end.
   */
  private void load(int i) {
    HeadCache cache = caches[i];
    int keyGroup = firstKeyGroup + i;
    byte[] start =
        cache.floor != null ? cache.floor : RocksDBKeyedStateBackend.keyGroupPrefix(keyGroup);
    try (Slice end = new Slice(RocksDBKeyedStateBackend.keyGroupPrefix(keyGroup + 1));
        ReadOptions options = new ReadOptions().setIterateUpperBound(end);
        RocksIterator it = backend.db.newIterator(column.handle, options)) {
      it.seek(start);
      while (it.isValid() && cache.timers.size() < cacheSize) {
        cache.timers.add(it.key());
        it.next();
      }
      cache.complete = !it.isValid();
    }
    refreshHead(i);
  }

  private void refreshHead(int i) {
    HeadCache cache = caches[i];
    heads[i] = cache.timers.isEmpty() ? Long.MAX_VALUE : timestampOf(cache.timers.first());
  }

  /** After the cache of {@code i} lost {@code removed}: loads it again if that emptied it. */
  private void afterRemoval(int i, byte[] removed) {
    HeadCache cache = caches[i];
    if (cache.timers.isEmpty()) {
      // Every timer up to the removed one was cached and is gone.
      cache.floor = removed;
      if (!cache.complete) {
        load(i);
        return;
      }
    }
    refreshHead(i);
  }

  @Override
  public boolean add(long timestamp, K key) {
    int keyGroup = KeyGroupRangeAssignment.assignToKeyGroup(key, backend.getMaxParallelism());
    int i = keyGroup - firstKeyGroup;
    byte[] rocksKey = timerKey(timestamp, key, keyGroup);
    HeadCache cache = caches[i];
    try {
      if (cache.covers(rocksKey)) {
        if (!cache.timers.add(rocksKey)) {
          return false;
        }
        backend.db.put(column.handle, backend.writeOptions, rocksKey, EMPTY);
        if (cache.timers.size() > cacheSize) {
          cache.timers.pollLast();
          cache.complete = false;
        }
        refreshHead(i);
        return true;
      }
      // Later than every cached timer: not cached, so RocksDB says whether it is there.
      if (backend.db.get(column.handle, backend.readOptions, rocksKey) != null) {
        return false;
      }
      backend.db.put(column.handle, backend.writeOptions, rocksKey, EMPTY);
      return true;
    } catch (RocksDBException e) {
      throw new IllegalStateException(
          "RocksDB could not store timer " + timestamp + " of " + column.name, e);
    }
  }

  @Override
  public boolean remove(long timestamp, K key) {
    int keyGroup = KeyGroupRangeAssignment.assignToKeyGroup(key, backend.getMaxParallelism());
    int i = keyGroup - firstKeyGroup;
    byte[] rocksKey = timerKey(timestamp, key, keyGroup);
    HeadCache cache = caches[i];
    try {
      if (cache.covers(rocksKey)) {
        if (!cache.timers.remove(rocksKey)) {
          return false;
        }
        backend.db.delete(column.handle, backend.writeOptions, rocksKey);
        afterRemoval(i, rocksKey);
        return true;
      }
      if (backend.db.get(column.handle, backend.readOptions, rocksKey) == null) {
        return false;
      }
      backend.db.delete(column.handle, backend.writeOptions, rocksKey);
      return true;
    } catch (RocksDBException e) {
      throw new IllegalStateException(
          "RocksDB could not delete timer " + timestamp + " of " + column.name, e);
    }
  }

  private int earliestKeyGroupIndex() {
    int best = -1;
    long min = Long.MAX_VALUE;
    for (int i = 0; i < heads.length; i++) {
      if (heads[i] < min) {
        min = heads[i];
        best = i;
      }
    }
    return best;
  }

  @Override
  public long peekTimestamp() {
    int i = earliestKeyGroupIndex();
    return i < 0 ? Long.MAX_VALUE : heads[i];
  }

  @Override
  public Timer<K> poll() {
    int i = earliestKeyGroupIndex();
    if (i < 0) {
      return null;
    }
    byte[] rocksKey = caches[i].timers.pollFirst();
    try {
      backend.db.delete(column.handle, backend.writeOptions, rocksKey);
      int keyStart = RocksDBKeyedStateBackend.KEY_GROUP_BYTES + 8;
      in.setBuffer(rocksKey, keyStart, rocksKey.length - keyStart);
      K key = backend.keySerializer.deserialize(in);
      afterRemoval(i, rocksKey);
      return new Timer<>(timestampOf(rocksKey), key);
    } catch (RocksDBException | IOException e) {
      throw new IllegalStateException("RocksDB could not read the timers of " + column.name, e);
    }
  }
}

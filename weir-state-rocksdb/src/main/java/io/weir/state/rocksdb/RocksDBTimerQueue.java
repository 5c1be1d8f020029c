package io.weir.state.rocksdb;

import io.weir.api.typeutils.DataInputDeserializer;
import io.weir.api.typeutils.DataOutputSerializer;
import io.weir.runtime.state.KeyGroupRangeAssignment;
import io.weir.runtime.state.TimerQueue;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Arrays;
import org.rocksdb.RocksDBException;
import org.rocksdb.RocksIterator;

/**
 * Timers in a column family of the RocksDB backend, so that millions of timers do not live on the
 * heap. Keys are {@code keyGroup:2 | timestamp:8 | key}, with the timestamp's sign bit flipped so
 * that byte order is time order: within a key group the first entry is the earliest timer. Only the
 * earliest timestamp of each key group is kept in memory (one long per key group); the earliest
 * overall is the smallest of those.
 */
final class RocksDBTimerQueue<K> implements TimerQueue<K> {

  private static final byte[] EMPTY = new byte[0];

  private final RocksDBKeyedStateBackend<K> backend;
  private final RocksDBKeyedStateBackend.Column column;
  private final int firstKeyGroup;

  /** Per key group of the range: its earliest timestamp, or Long.MAX_VALUE when it has none. */
  private final long[] heads;

  private final DataOutputSerializer out = new DataOutputSerializer(64);
  private final DataInputDeserializer in = new DataInputDeserializer();

  RocksDBTimerQueue(RocksDBKeyedStateBackend<K> backend, RocksDBKeyedStateBackend.Column column) {
    this.backend = backend;
    this.column = column;
    this.firstKeyGroup = backend.range.startKeyGroup();
    this.heads = new long[backend.range.getNumberOfKeyGroups()];
    Arrays.fill(heads, Long.MAX_VALUE);
    for (int kg = backend.range.startKeyGroup(); kg <= backend.range.endKeyGroup(); kg++) {
      refreshHead(kg);
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

  /** Re-reads the earliest timestamp of {@code keyGroup}. */
  private void refreshHead(int keyGroup) {
    byte[] prefix = RocksDBKeyedStateBackend.keyGroupPrefix(keyGroup);
    try (RocksIterator it = backend.db.newIterator(column.handle, backend.readOptions)) {
      it.seek(prefix);
      heads[keyGroup - firstKeyGroup] =
          it.isValid() && RocksDBKeyedStateBackend.startsWith(it.key(), prefix)
              ? timestampOf(it.key())
              : Long.MAX_VALUE;
    }
  }

  @Override
  public boolean add(long timestamp, K key) {
    int keyGroup = KeyGroupRangeAssignment.assignToKeyGroup(key, backend.getMaxParallelism());
    byte[] rocksKey = timerKey(timestamp, key, keyGroup);
    try {
      if (backend.db.get(column.handle, backend.readOptions, rocksKey) != null) {
        return false;
      }
      backend.db.put(column.handle, backend.writeOptions, rocksKey, EMPTY);
    } catch (RocksDBException e) {
      throw new IllegalStateException("RocksDB could not store timer " + timestamp, e);
    }
    int i = keyGroup - firstKeyGroup;
    heads[i] = Math.min(heads[i], timestamp);
    return true;
  }

  @Override
  public boolean remove(long timestamp, K key) {
    int keyGroup = KeyGroupRangeAssignment.assignToKeyGroup(key, backend.getMaxParallelism());
    byte[] rocksKey = timerKey(timestamp, key, keyGroup);
    try {
      if (backend.db.get(column.handle, backend.readOptions, rocksKey) == null) {
        return false;
      }
      backend.db.delete(column.handle, backend.writeOptions, rocksKey);
    } catch (RocksDBException e) {
      throw new IllegalStateException("RocksDB could not delete timer " + timestamp, e);
    }
    if (heads[keyGroup - firstKeyGroup] == timestamp) {
      refreshHead(keyGroup);
    }
    return true;
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
    int keyGroup = firstKeyGroup + i;
    byte[] prefix = RocksDBKeyedStateBackend.keyGroupPrefix(keyGroup);
    try (RocksIterator it = backend.db.newIterator(column.handle, backend.readOptions)) {
      it.seek(prefix);
      if (!it.isValid() || !RocksDBKeyedStateBackend.startsWith(it.key(), prefix)) {
        heads[i] = Long.MAX_VALUE;
        return poll();
      }
      byte[] rocksKey = it.key();
      long timestamp = timestampOf(rocksKey);
      int keyStart = RocksDBKeyedStateBackend.KEY_GROUP_BYTES + 8;
      in.setBuffer(rocksKey, keyStart, rocksKey.length - keyStart);
      K key = backend.keySerializer.deserialize(in);
      backend.db.delete(column.handle, backend.writeOptions, rocksKey);
      it.next();
      heads[i] =
          it.isValid() && RocksDBKeyedStateBackend.startsWith(it.key(), prefix)
              ? timestampOf(it.key())
              : Long.MAX_VALUE;
      return new Timer<>(timestamp, key);
    } catch (RocksDBException | IOException e) {
      throw new IllegalStateException("RocksDB could not read the timers of " + column.name, e);
    }
  }
}

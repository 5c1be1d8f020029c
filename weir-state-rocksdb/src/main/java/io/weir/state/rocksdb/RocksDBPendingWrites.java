package io.weir.state.rocksdb;

import org.rocksdb.RocksDBException;
import org.rocksdb.WriteBatch;

/**
 * The write cache's writes on their way to RocksDB: entries it evicts, writes and clears that miss
 * it when it is full, and its dirty entries at a flush. They are gathered, the latest value per
 * key, until their keys and values reach {@link RocksDBOptions#WRITE_BATCH_SIZE} bytes, then
 * written in one write batch: RocksDB takes a batch of thousands of writes at a fraction of the
 * cost of as many single puts. Until then {@link #find} answers for them, so that a read of such a
 * key sees its newest value, not RocksDB's. A null value is a delete. Task thread only.
 */
final class RocksDBPendingWrites extends RocksDBEntryTable {

  private static final int INITIAL_CAPACITY = 64;

  private final RocksDBKeyedStateBackend<?> backend;
  private final long maxBytes;
  private long bytes;

  RocksDBPendingWrites(RocksDBKeyedStateBackend<?> backend, long maxBytes) {
    if (maxBytes <= 0) {
      throw new IllegalArgumentException(
          RocksDBOptions.WRITE_BATCH_SIZE.key() + " must be positive, not " + maxBytes + " bytes");
    }
    this.backend = backend;
    this.maxBytes = maxBytes;
    allocate(INITIAL_CAPACITY);
  }

  /**
   * Sets {@code key}'s value in {@code column} (null: deletes it), replacing a pending write of the
   * same key; writes the batch once it is full. The value array becomes this table's.
   */
  void put(RocksDBKeyedStateBackend.Column column, byte[] key, int hash, byte[] value)
      throws RocksDBException {
    int e = find(column, key, hash);
    if (e >= 0) {
      bytes += length(value) - length(values[e]);
      values[e] = value;
    } else {
      if (size == keys.length) {
        allocate(2 * size);
      }
      link(size++, column, key, hash, value);
      bytes += key.length + length(value);
    }
    if (bytes >= maxBytes) {
      write();
    }
  }

  private static int length(byte[] value) {
    return value == null ? 0 : value.length;
  }

  /** Writes every pending write to RocksDB in one batch and forgets them. */
  void write() throws RocksDBException {
    if (size == 0) {
      return;
    }
    try (WriteBatch batch = new WriteBatch()) {
      for (int e = 0; e < size; e++) {
        if (values[e] == null) {
          batch.delete(columns[e].handle, keys[e]);
        } else {
          batch.put(columns[e].handle, keys[e], values[e]);
        }
      }
      backend.db.write(backend.writeOptions, batch);
    }
    clear();
  }

  @Override
  void clear() {
    super.clear();
    bytes = 0;
  }
}

package io.weir.state.rocksdb;

import org.rocksdb.RocksDBException;

/**
 * Where the states that read and write one whole value per key (value, reducing and aggregating
 * state) keep it: in RocksDB itself ({@link Direct}), or in the write-back cache in front of it
 * ({@link RocksDBWriteCache}). Every call is about the backend's current key ({@link
 * RocksDBKeyedStateBackend#currentKeyBytes()}) in one column. List and map state never come here:
 * they read by prefix and merge, so they go to RocksDB directly. Task thread only.
 */
sealed interface SingleValueStore permits SingleValueStore.Direct, RocksDBWriteCache {

  /**
   * The serialized value of the current key in {@code column}, or null when it has none. The array
   * may be the store's own: read it before the next call, never keep or change it.
   */
  byte[] get(RocksDBKeyedStateBackend.Column column) throws RocksDBException;

  /** Sets the current key's value in {@code column} to the first {@code length} bytes of value. */
  void put(RocksDBKeyedStateBackend.Column column, byte[] value, int length)
      throws RocksDBException;

  /** Removes the current key's value in {@code column}. */
  void delete(RocksDBKeyedStateBackend.Column column) throws RocksDBException;

  /**
   * Writes every update RocksDB does not have yet to RocksDB. Called before anything reads RocksDB
   * otherwise than through {@link #get}: a snapshot of either kind, a migration.
   */
  void flush() throws RocksDBException;

  /**
   * Forgets what was not flushed (the backend closes): such updates die with the task, and a
   * restored job starts from its checkpoint, which never held them.
   */
  void discard();

  /** The store for {@code cacheSize} ({@link RocksDBOptions#WRITE_CACHE_SIZE}): 0 for none. */
  static SingleValueStore create(RocksDBKeyedStateBackend<?> backend, int cacheSize) {
    return cacheSize == 0 ? new Direct(backend) : new RocksDBWriteCache(backend, cacheSize);
  }

  /** No cache: every access is a RocksDB point read, put or delete. */
  final class Direct implements SingleValueStore {
    private final RocksDBKeyedStateBackend<?> backend;

    Direct(RocksDBKeyedStateBackend<?> backend) {
      this.backend = backend;
    }

    @Override
    public byte[] get(RocksDBKeyedStateBackend.Column column) throws RocksDBException {
      return backend.db.get(column.handle, backend.readOptions, backend.currentKeyBytes());
    }

    @Override
    public void put(RocksDBKeyedStateBackend.Column column, byte[] value, int length)
        throws RocksDBException {
      byte[] key = backend.currentKeyBytes();
      backend.db.put(column.handle, backend.writeOptions, key, 0, key.length, value, 0, length);
    }

    @Override
    public void delete(RocksDBKeyedStateBackend.Column column) throws RocksDBException {
      backend.db.delete(column.handle, backend.writeOptions, backend.currentKeyBytes());
    }

    @Override
    public void flush() {}

    @Override
    public void discard() {}
  }
}

package io.weir.state.rocksdb;

import org.rocksdb.RocksDBException;

/**
 * Where the states that read and write one whole value per RocksDB key keep it: in RocksDB itself
 * ({@link Direct}), or in the write-back cache in front of it ({@link RocksDBWriteCache}). Value,
 * reducing and aggregating state come here with the backend's current key ({@link
 * RocksDBKeyedStateBackend#currentKeyBytes()}); a map state with the RocksDB key of one of its
 * entries (the current key and the entry's key), for its point accesses until it is first read
 * whole. List state never comes here: it merges, so it goes to RocksDB directly. Task thread only.
 */
sealed interface SingleValueStore permits SingleValueStore.Direct, RocksDBWriteCache {

  /**
   * The serialized value of the current key in {@code column}, or null when it has none. The array
   * may be the store's own: read it before the next call, never keep or change it.
   */
  byte[] get(RocksDBColumn column) throws RocksDBException;

  /** Sets the current key's value in {@code column} to the first {@code length} bytes of value. */
  void put(RocksDBColumn column, byte[] value, int length) throws RocksDBException;

  /** Removes the current key's value in {@code column}. */
  void delete(RocksDBColumn column) throws RocksDBException;

  /**
   * {@link #get(RocksDBColumn)} of RocksDB key {@code key}, whose {@code Arrays.hashCode} is {@code
   * keyHash}; the store may keep {@code key}, which must not change.
   */
  byte[] get(RocksDBColumn column, byte[] key, int keyHash) throws RocksDBException;

  /** {@link #put(RocksDBColumn, byte[], int)} of RocksDB key {@code key}. */
  void put(RocksDBColumn column, byte[] key, int keyHash, byte[] value, int length)
      throws RocksDBException;

  /** {@link #delete(RocksDBColumn)} of RocksDB key {@code key}. */
  void delete(RocksDBColumn column, byte[] key, int keyHash) throws RocksDBException;

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
    public byte[] get(RocksDBColumn column) throws RocksDBException {
      return get(column, backend.currentKeyBytes(), 0);
    }

    @Override
    public void put(RocksDBColumn column, byte[] value, int length) throws RocksDBException {
      put(column, backend.currentKeyBytes(), 0, value, length);
    }

    @Override
    public void delete(RocksDBColumn column) throws RocksDBException {
      delete(column, backend.currentKeyBytes(), 0);
    }

    @Override
    public byte[] get(RocksDBColumn column, byte[] key, int keyHash) throws RocksDBException {
      return backend.db.get(column.handle, backend.readOptions, key);
    }

    @Override
    public void put(RocksDBColumn column, byte[] key, int keyHash, byte[] value, int length)
        throws RocksDBException {
      backend.db.put(column.handle, backend.writeOptions, key, 0, key.length, value, 0, length);
    }

    @Override
    public void delete(RocksDBColumn column, byte[] key, int keyHash) throws RocksDBException {
      backend.db.delete(column.handle, backend.writeOptions, key);
    }

    @Override
    public void flush() {}

    @Override
    public void discard() {}
  }
}

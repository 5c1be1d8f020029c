package io.weir.state.rocksdb;

import org.rocksdb.RocksDBException;
import org.rocksdb.WriteBatch;

/**
 * A write batch that writes itself out every {@link RocksDBOptions#WRITE_BATCH_SIZE} bytes, and at
 * close: for restoring canonical state and migrating state, which write many entries in a row.
 */
final class RocksDBBatchWriter implements AutoCloseable {
  private final RocksDBKeyedStateBackend<?> backend;
  private final WriteBatch batch = new WriteBatch();

  RocksDBBatchWriter(RocksDBKeyedStateBackend<?> backend) {
    this.backend = backend;
  }

  void put(RocksDBColumn column, byte[] key, byte[] value) throws RocksDBException {
    batch.put(column.handle, key, value);
    writeIfFull();
  }

  void delete(RocksDBColumn column, byte[] key) throws RocksDBException {
    batch.delete(column.handle, key);
    writeIfFull();
  }

  private void writeIfFull() throws RocksDBException {
    if (batch.getDataSize() >= backend.writeBatchBytes) {
      backend.db.write(backend.writeOptions, batch);
      batch.clear();
    }
  }

  @Override
  public void close() throws RocksDBException {
    try {
      if (batch.count() > 0) {
        backend.db.write(backend.writeOptions, batch);
      }
    } finally {
      batch.close();
    }
  }
}

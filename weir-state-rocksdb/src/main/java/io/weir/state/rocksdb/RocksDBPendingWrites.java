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

  // The record types of RocksDB's write batch (db/dbformat.h); the default column family (id 0)
  // has types of its own, without the id.
  private static final byte DELETION = 0x0;
  private static final byte VALUE = 0x1;
  private static final byte FAMILY_DELETION = 0x4;
  private static final byte FAMILY_VALUE = 0x5;
  private static final int HEADER = 12;

  /** Below the G1 collector's smallest humongous object (half of a 1 MB region). */
  private static final int PIECE_BYTES = 256 * 1024;

  private final RocksDBKeyedStateBackend<?> backend;
  private final long maxBytes;
  private long bytes;

  RocksDBPendingWrites(RocksDBKeyedStateBackend<?> backend) {
    this.backend = backend;
    this.maxBytes = backend.writeBatchBytes;
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

  /**
   * Writes every pending write to RocksDB and forgets them. The writes are handed over in RocksDB's
   * own serialized form ({@link #serialized}), one JNI call for thousands instead of one per {@code
   * WriteBatch.put} (which took 16 % of W3's time), in batches of at most {@value #PIECE_BYTES}
   * bytes: a larger array would be a humongous allocation of the G1 collector at every write.
   */
  void write() throws RocksDBException {
    for (int from = 0; from < size; ) {
      int to = from + 1;
      for (long piece = HEADER + recordLength(from);
          to < size && piece + recordLength(to) <= PIECE_BYTES;
          to++) {
        piece += recordLength(to);
      }
      try (WriteBatch batch = new WriteBatch(serialized(columns, keys, values, from, to))) {
        backend.db.write(backend.writeOptions, batch);
      }
      from = to;
    }
    clear();
  }

  /**
   * Writes {@code from} to {@code to} (exclusive) as RocksDB serializes a write batch ({@code
   * WriteBatch::Data()}, db/write_batch.cc): a header of the sequence number (8 bytes, 0 until
   * written) and the count (4 bytes), both little-endian, then per write its type, the column
   * family's id unless it is the default one, and the key and value (none for a delete) each as a
   * varint32 length and its bytes. A null value is a delete.
   */
  static byte[] serialized(
      RocksDBKeyedStateBackend.Column[] columns, byte[][] keys, byte[][] values, int from, int to) {
    long length = HEADER;
    for (int e = from; e < to; e++) {
      length += recordLength(columns[e], keys[e], values[e]);
    }
    if (length > Integer.MAX_VALUE - 16) {
      throw new IllegalStateException("a write batch of " + length + " bytes is too large");
    }
    int count = to - from;
    byte[] out = new byte[(int) length];
    out[8] = (byte) count;
    out[9] = (byte) (count >>> 8);
    out[10] = (byte) (count >>> 16);
    out[11] = (byte) (count >>> 24);
    int at = HEADER;
    for (int e = from; e < to; e++) {
      int family = columns[e].familyId;
      boolean delete = values[e] == null;
      if (family == 0) {
        out[at++] = delete ? DELETION : VALUE;
      } else {
        out[at++] = delete ? FAMILY_DELETION : FAMILY_VALUE;
        at = varint(out, at, family);
      }
      at = bytes(out, at, keys[e]);
      if (!delete) {
        at = bytes(out, at, values[e]);
      }
    }
    return out;
  }

  private long recordLength(int e) {
    return recordLength(columns[e], keys[e], values[e]);
  }

  /** The bytes of one write in a serialized batch. */
  private static long recordLength(
      RocksDBKeyedStateBackend.Column column, byte[] key, byte[] value) {
    int family = column.familyId;
    long length = 1 + (family == 0 ? 0 : varintLength(family));
    length += varintLength(key.length) + key.length;
    return value == null ? length : length + varintLength(value.length) + value.length;
  }

  private static int varintLength(int v) {
    int n = 1;
    while ((v & ~0x7F) != 0) {
      v >>>= 7;
      n++;
    }
    return n;
  }

  private static int varint(byte[] out, int at, int v) {
    while ((v & ~0x7F) != 0) {
      out[at++] = (byte) ((v & 0x7F) | 0x80);
      v >>>= 7;
    }
    out[at++] = (byte) v;
    return at;
  }

  private static int bytes(byte[] out, int at, byte[] b) {
    at = varint(out, at, b.length);
    System.arraycopy(b, 0, out, at, b.length);
    return at + b.length;
  }

  @Override
  void clear() {
    super.clear();
    bytes = 0;
  }
}

package io.weir.state.rocksdb;

import java.util.Arrays;
import org.rocksdb.RocksDBException;
import org.rocksdb.WriteBatch;

/**
 * The write cache's writes on their way to RocksDB: entries it evicts, writes and clears that miss
 * it when it is full, and its dirty entries at a flush. They are gathered, the latest value per
 * key, until their keys and values reach {@link RocksDBOptions#WRITE_BATCH_SIZE} bytes, then
 * written in one write batch: RocksDB takes a batch of thousands of writes at a fraction of the
 * cost of as many single puts. Until then {@link #find} answers for them, so that a read of such a
 * key sees its newest value, not RocksDB's. A null value is a delete. Task thread only.
 *
 * <p>A batch goes to RocksDB in key order ({@link #inKeyOrder}), not in the order its writes came.
 * A memtable is a skip list that remembers where its last insert went (RocksDB's splice), so keys
 * that come in order are each inserted beside the last one, without a search from the top: 50 000
 * keys of W2 went into a memtable in 5.4 ms so, against 25 ms in key-group order only and more in
 * the order they came; the sort costs about 6 ms of that saving. The memtable then also holds each
 * key group's entries of one batch side by side, and a flush, which reads the memtable in key
 * order, walks neighbouring entries instead of one cache line and page per entry across the whole
 * memtable. Each key appears once in a batch, so the order of its writes is free.
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

  // The entries' indexes in key-group order and the radix sort's other half and counts; reused.
  private int[] order = new int[0];
  private int[] scratch = new int[0];
  private final int[] counts = new int[257];

  RocksDBPendingWrites(RocksDBKeyedStateBackend<?> backend) {
    this.backend = backend;
    this.maxBytes = backend.writeBatchBytes;
    allocate(INITIAL_CAPACITY);
  }

  /**
   * Sets {@code key}'s value in {@code column} (null: deletes it), replacing a pending write of the
   * same key; writes the batch once it is full. The value array becomes this table's.
   */
  void put(RocksDBColumn column, byte[] key, int hash, byte[] value) throws RocksDBException {
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
    writeInKeyOrder(this, inKeyOrder(), size);
    clear();
  }

  /**
   * Writes every pending write, then the entries {@code entries[0]} to {@code entries[n - 1]} of
   * {@code table}, which must be newer than any pending write of the same key: the write cache's
   * dirty entries at a flush, written from its own arrays rather than copied into this table first
   * (a lookup and a link per entry, a tenth of a W2 checkpoint's time on the task thread). Reorders
   * {@code entries}.
   */
  void writeWithNewer(RocksDBEntryTable table, int[] entries, int n) throws RocksDBException {
    write();
    writeInKeyOrder(table, inKeyOrder(table.keys, entries, n), n);
  }

  private void writeInKeyOrder(RocksDBEntryTable table, int[] sorted, int n)
      throws RocksDBException {
    RocksDBColumn[] columns = table.columns;
    byte[][] keys = table.keys;
    byte[][] values = table.values;
    for (int from = 0; from < n; ) {
      int to = from + 1;
      int first = sorted[from];
      for (long piece = HEADER + recordLength(columns[first], keys[first], values[first]);
          to < n;
          to++) {
        int e = sorted[to];
        long record = recordLength(columns[e], keys[e], values[e]);
        if (piece + record > PIECE_BYTES) {
          break;
        }
        piece += record;
      }
      try (WriteBatch batch = new WriteBatch(serialized(columns, keys, values, sorted, from, to))) {
        backend.db.write(backend.writeOptions, batch);
      }
      from = to;
    }
  }

  /** The entries' indexes ordered by their keys, as RocksDB's default comparator orders them. */
  int[] inKeyOrder() {
    if (order.length < size) {
      order = new int[keys.length];
    }
    for (int e = 0; e < size; e++) {
      order[e] = e;
    }
    return inKeyOrder(keys, order, size);
  }

  /**
   * Sorts {@code entries[0]} to {@code entries[n - 1]}, indexes into {@code keys}, by their keys,
   * in place: by the key group (the first two bytes) with a radix sort, a byte a pass, linear in
   * the entries, then each key group's run, a few hundred entries, by comparison.
   */
  private int[] inKeyOrder(byte[][] keys, int[] entries, int n) {
    if (scratch.length < n) {
      scratch = new int[Math.max(n, keys.length)];
    }
    sortByte(keys, entries, scratch, n, 1);
    sortByte(keys, scratch, entries, n, 0);
    for (int from = 0; from < n; ) {
      int group = keyGroupBytes(keys[entries[from]]);
      int to = from + 1;
      while (to < n && keyGroupBytes(keys[entries[to]]) == group) {
        to++;
      }
      sortRun(keys, entries, from, to);
      from = to;
    }
    return entries;
  }

  private static int keyGroupBytes(byte[] key) {
    return byteOf(key, 0) << 8 | byteOf(key, 1);
  }

  /** Sorts {@code entries[from]} to {@code entries[to - 1]} by their keys: a quicksort. */
  private static void sortRun(byte[][] keys, int[] entries, int from, int to) {
    while (to - from > 16) {
      byte[] pivot = keys[medianOfThree(keys, entries, from, (from + to) >>> 1, to - 1)];
      int i = from;
      int j = to - 1;
      while (i <= j) {
        while (Arrays.compareUnsigned(keys[entries[i]], pivot) < 0) {
          i++;
        }
        while (Arrays.compareUnsigned(keys[entries[j]], pivot) > 0) {
          j--;
        }
        if (i <= j) {
          int swap = entries[i];
          entries[i++] = entries[j];
          entries[j--] = swap;
        }
      }
      // The smaller side by recursion, the larger by the loop: a stack of at most log n frames.
      if (j - from < to - i) {
        sortRun(keys, entries, from, j + 1);
        from = i;
      } else {
        sortRun(keys, entries, i, to);
        to = j + 1;
      }
    }
    for (int i = from + 1; i < to; i++) {
      int e = entries[i];
      int j = i - 1;
      while (j >= from && Arrays.compareUnsigned(keys[entries[j]], keys[e]) > 0) {
        entries[j + 1] = entries[j];
        j--;
      }
      entries[j + 1] = e;
    }
  }

  private static int medianOfThree(byte[][] keys, int[] entries, int a, int b, int c) {
    int x = entries[a];
    int y = entries[b];
    int z = entries[c];
    if (Arrays.compareUnsigned(keys[x], keys[y]) < 0) {
      if (Arrays.compareUnsigned(keys[y], keys[z]) < 0) {
        return y;
      }
      return Arrays.compareUnsigned(keys[x], keys[z]) < 0 ? z : x;
    }
    if (Arrays.compareUnsigned(keys[x], keys[z]) < 0) {
      return x;
    }
    return Arrays.compareUnsigned(keys[y], keys[z]) < 0 ? z : y;
  }

  /** Moves the first {@code n} indexes of {@code from} to {@code to}, stably by key byte i. */
  private void sortByte(byte[][] keys, int[] from, int[] to, int n, int i) {
    Arrays.fill(counts, 0);
    for (int k = 0; k < n; k++) {
      counts[byteOf(keys[from[k]], i) + 1]++;
    }
    for (int b = 0; b < 256; b++) {
      counts[b + 1] += counts[b];
    }
    for (int k = 0; k < n; k++) {
      int e = from[k];
      to[counts[byteOf(keys[e], i)]++] = e;
    }
  }

  private static int byteOf(byte[] key, int i) {
    return i < key.length ? key[i] & 0xFF : 0;
  }

  /**
   * Writes the entries {@code order[from]} to {@code order[to - 1]} as RocksDB serializes a write
   * batch ({@code WriteBatch::Data()}, db/write_batch.cc): a header of the sequence number (8
   * bytes, 0 until written) and the count (4 bytes), both little-endian, then per write its type,
   * the column family's id unless it is the default one, and the key and value (none for a delete)
   * each as a varint32 length and its bytes. A null value is a delete.
   */
  static byte[] serialized(
      RocksDBColumn[] columns, byte[][] keys, byte[][] values, int[] order, int from, int to) {
    long length = HEADER;
    for (int k = from; k < to; k++) {
      int e = order[k];
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
    for (int k = from; k < to; k++) {
      int e = order[k];
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

  /** The bytes of one write in a serialized batch. */
  private static long recordLength(RocksDBColumn column, byte[] key, byte[] value) {
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

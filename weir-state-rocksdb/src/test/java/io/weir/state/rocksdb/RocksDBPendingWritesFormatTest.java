package io.weir.state.rocksdb;

import static org.assertj.core.api.Assertions.assertThat;

import io.weir.api.state.StateDescriptor;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.rocksdb.ColumnFamilyDescriptor;
import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.DBOptions;
import org.rocksdb.RocksDB;
import org.rocksdb.WriteBatch;
import org.rocksdb.WriteOptions;

/**
 * The write batches {@link RocksDBPendingWrites} serializes itself are byte for byte those RocksDB
 * builds from the same puts and deletes, in the default column family and in others (ids past one
 * byte of varint, keys and values past 127 bytes), and RocksDB applies them.
 */
class RocksDBPendingWritesFormatTest {

  @TempDir Path dir;

  @Test
  void aSerializedBatchIsTheOneRocksDBBuildsAndRocksDBAppliesIt() throws Exception {
    RocksDB.loadLibrary();
    List<ColumnFamilyDescriptor> families = new ArrayList<>();
    families.add(new ColumnFamilyDescriptor(RocksDB.DEFAULT_COLUMN_FAMILY));
    List<ColumnFamilyHandle> handles = new ArrayList<>();
    try (DBOptions options =
            new DBOptions().setCreateIfMissing(true).setCreateMissingColumnFamilies(true);
        RocksDB db = RocksDB.open(options, dir.toString(), families, handles);
        WriteOptions write = new WriteOptions().setDisableWAL(true)) {
      List<RocksDBColumn> columns = new ArrayList<>();
      columns.add(column("default", handles.get(0)));
      // 130 more families: the last ids need two bytes of varint.
      for (int i = 1; i <= 130; i++) {
        ColumnFamilyHandle h =
            db.createColumnFamily(new ColumnFamilyDescriptor(("s" + i).getBytes()));
        handles.add(h);
        columns.add(column("s" + i, h));
      }
      assertThat(columns.get(130).familyId).isGreaterThan(127);

      Random random = new Random(42);
      int count = 500;
      RocksDBColumn[] cs = new RocksDBColumn[count];
      byte[][] keys = new byte[count][];
      byte[][] values = new byte[count][];
      for (int e = 0; e < count; e++) {
        cs[e] = columns.get(e % 3 == 0 ? 0 : random.nextInt(columns.size()));
        keys[e] =
            bytes(
                random,
                random.nextInt(4) == 0 ? 200 + random.nextInt(20000) : 1 + random.nextInt(12));
        values[e] =
            random.nextInt(5) == 0
                ? null
                : bytes(
                    random,
                    random.nextInt(4) == 0 ? 128 + random.nextInt(70000) : random.nextInt(100));
      }

      int[] order = new int[count];
      Arrays.setAll(order, e -> e);
      byte[] ours = RocksDBPendingWrites.serialized(cs, keys, values, order, 0, count);

      try (WriteBatch theirs = new WriteBatch()) {
        for (int e = 0; e < count; e++) {
          if (values[e] == null) {
            theirs.delete(cs[e].handle, keys[e]);
          } else {
            theirs.put(cs[e].handle, keys[e], values[e]);
          }
        }
        assertThat(Arrays.equals(ours, theirs.data())).as("the same bytes as RocksDB's").isTrue();
      }
      try (WriteBatch batch = new WriteBatch(ours)) {
        assertThat(batch.count()).isEqualTo(count);
        db.write(write, batch);
      }
      for (int e = 0; e < count; e++) {
        if (lastWriteOf(cs, keys, e)) {
          assertThat(db.get(cs[e].handle, keys[e])).as("write %s", e).isEqualTo(values[e]);
        }
      }
      for (int i = 1; i < handles.size(); i++) {
        handles.get(i).close();
      }
      handles.get(0).close();
    }
  }

  /** Whether no later write has the same column and key as write {@code e}. */
  private static boolean lastWriteOf(RocksDBColumn[] cs, byte[][] keys, int e) {
    for (int later = e + 1; later < keys.length; later++) {
      if (cs[later] == cs[e] && Arrays.equals(keys[later], keys[e])) {
        return false;
      }
    }
    return true;
  }

  private static RocksDBColumn column(String name, ColumnFamilyHandle handle) {
    return new RocksDBColumn(name, StateDescriptor.Kind.VALUE, false, handle, null, null);
  }

  private static byte[] bytes(Random random, int length) {
    byte[] b = new byte[length];
    random.nextBytes(b);
    return b;
  }
}

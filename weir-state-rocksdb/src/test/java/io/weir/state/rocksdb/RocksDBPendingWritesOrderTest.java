package io.weir.state.rocksdb;

import static org.assertj.core.api.Assertions.assertThat;

import io.weir.api.config.Configuration;
import io.weir.api.state.ValueStateDescriptor;
import io.weir.api.typeutils.Types;
import io.weir.runtime.state.KeyedStateBackend;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link RocksDBPendingWrites} hands a batch to RocksDB in key order, as RocksDB's default
 * comparator orders keys (unsigned bytes, a key before the longer keys it begins), each write once,
 * and RocksDB then holds the latest value of every key.
 */
class RocksDBPendingWritesOrderTest {

  @TempDir Path dir;

  @Test
  void aBatchGoesToRocksDBInKeyOrderAndEveryWriteArrives() throws Exception {
    Configuration conf = TestBackends.configuration("rocksdb-incremental", dir.resolve("local"));
    conf.setString(RocksDBOptions.WRITE_BATCH_SIZE.key(), "64mb"); // no write before ours
    KeyedStateBackend<Long> backend =
        TestBackends.create(conf, Types.LONG.createSerializer(), 0, 1, null);
    try {
      backend.getState(new ValueStateDescriptor<>("value", Types.LONG));
      RocksDBKeyedStateBackend<Long> rocks = (RocksDBKeyedStateBackend<Long>) backend;
      RocksDBColumn column = rocks.columns.get("value");
      RocksDBPendingWrites pending = new RocksDBPendingWrites(rocks);

      Random random = new Random(7);
      List<byte[]> keys = new ArrayList<>();
      List<byte[]> values = new ArrayList<>();
      for (int e = 0; e < 5_000; e++) {
        // Few key groups, so that many writes share one (hundreds for half of them, which the
        // sort takes apart by comparison); now and then a key shorter than a key group's two
        // bytes, and a key written again (its latest value is the one to arrive).
        byte[] key;
        if (e > 0 && random.nextInt(20) == 0) {
          key = keys.get(random.nextInt(keys.size()));
        } else {
          key = new byte[random.nextInt(30) == 0 ? 1 : 2 + random.nextInt(9)];
          random.nextBytes(key);
          key[0] = (byte) random.nextInt(3);
          if (key.length > 1 && random.nextBoolean()) {
            key[1] = (byte) random.nextInt(2);
          }
        }
        byte[] value = new byte[1 + random.nextInt(40)];
        random.nextBytes(value);
        pending.put(column, key, Arrays.hashCode(key), value);
        int earlier = indexOf(keys, key);
        if (earlier >= 0) {
          values.set(earlier, value);
        } else {
          keys.add(key);
          values.add(value);
        }
      }
      assertThat(pending.size()).isEqualTo(keys.size());

      int[] order = pending.inKeyOrder();
      assertThat(Arrays.stream(order, 0, pending.size()).sorted().toArray())
          .as("each write once")
          .isEqualTo(java.util.stream.IntStream.range(0, pending.size()).toArray());
      for (int k = 1; k < pending.size(); k++) {
        assertThat(Arrays.compareUnsigned(pending.keys[order[k - 1]], pending.keys[order[k]]))
            .as("position %s", k)
            .isNegative();
      }

      pending.write();
      assertThat(pending.size()).isZero();
      for (int i = 0; i < keys.size(); i++) {
        assertThat(rocks.db.get(column.handle, keys.get(i)))
            .as("key %s", i)
            .isEqualTo(values.get(i));
      }
    } finally {
      backend.close();
    }
  }

  private static int indexOf(List<byte[]> keys, byte[] key) {
    for (int i = 0; i < keys.size(); i++) {
      if (Arrays.equals(keys.get(i), key)) {
        return i;
      }
    }
    return -1;
  }
}

package io.weir.state.rocksdb;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.weir.api.config.Configuration;
import io.weir.api.state.ValueState;
import io.weir.api.state.ValueStateDescriptor;
import io.weir.api.typeutils.Types;
import io.weir.runtime.checkpoint.CheckpointOptions;
import io.weir.runtime.checkpoint.KeyedStateHandle;
import io.weir.runtime.recovery.NonRecoverableException;
import io.weir.runtime.state.KeyedStateBackend;
import io.weir.runtime.state.KeyedStateSnapshot;
import io.weir.runtime.storage.CheckpointStorage;
import io.weir.runtime.storage.FileSystemCheckpointStorage;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The write cache of value state and of map state's entries ({@link RocksDBWriteCache}) does what
 * it is for (a hot key is not read from RocksDB again, the cache stays within its size) and every
 * snapshot kind holds what it had not written to RocksDB yet.
 */
class RocksDBWriteCacheTest {

  private static final ValueStateDescriptor<Long> COUNT =
      new ValueStateDescriptor<>("count", Types.LONG);

  @TempDir Path dir;

  private KeyedStateBackend<Long> open(
      String mode, int cacheSize, KeyedStateHandle restore, long id) throws Exception {
    return open(
        mode, cacheSize, RocksDBOptions.WRITE_BATCH_SIZE.defaultValue().toString(), restore, id);
  }

  private KeyedStateBackend<Long> open(
      String mode, int cacheSize, String writeBatch, KeyedStateHandle restore, long id)
      throws Exception {
    Configuration conf = TestBackends.configuration(mode, dir.resolve("local"));
    conf.set(RocksDBOptions.WRITE_CACHE_SIZE, cacheSize);
    conf.setString(RocksDBOptions.WRITE_BATCH_SIZE.key(), writeBatch);
    return TestBackends.create(
        conf,
        Types.LONG.createSerializer(),
        0,
        1,
        restore == null ? null : TestBackends.restored(id, List.of(restore), storage()));
  }

  private CheckpointStorage storage() {
    return new FileSystemCheckpointStorage(dir.resolve("checkpoints").toUri(), "0".repeat(32), 64);
  }

  private static RocksDBWriteCache cacheOf(KeyedStateBackend<Long> backend) {
    return (RocksDBWriteCache) ((RocksDBKeyedStateBackend<Long>) backend).singleValues;
  }

  /** What RocksDB itself holds for the current key in state {@code name}, past the cache. */
  private static byte[] inRocksDB(KeyedStateBackend<Long> backend, String name) throws Exception {
    RocksDBKeyedStateBackend<Long> rocks = (RocksDBKeyedStateBackend<Long>) backend;
    return rocks.db.get(rocks.columns.get(name).handle, rocks.currentKeyBytes());
  }

  @Test
  void aHotKeyIsReadFromRocksDBOnceAndWrittenOnlyWhenFlushed() throws Exception {
    KeyedStateBackend<Long> backend = open("rocksdb-incremental", 100, null, 0);
    try {
      ValueState<Long> count = backend.getState(COUNT);
      backend.setCurrentKey(7L);
      for (int i = 0; i < 100; i++) {
        Long now = count.value();
        count.update(now == null ? 1 : now + 1);
        backend.setCurrentKey(7L); // as the runtime does for every record
      }
      RocksDBWriteCache cache = cacheOf(backend);
      assertThat(count.value()).isEqualTo(100L);
      assertThat(cache.misses()).isEqualTo(1);
      assertThat(cache.hits()).isEqualTo(100);
      assertThat(cache.dirtyEntries()).isEqualTo(1);
      assertThat(inRocksDB(backend, "count")).isNull();

      backend.snapshot(1).release();

      assertThat(cache.dirtyEntries()).isZero();
      assertThat(cache.size()).isEqualTo(1); // kept, clean: the next read is still a hit
      assertThat(inRocksDB(backend, "count")).isNotNull();
      assertThat(count.value()).isEqualTo(100L);
      assertThat(cache.misses()).isEqualTo(1);
    } finally {
      backend.close();
    }
  }

  @Test
  void theCacheStaysWithinItsSizeAndWritesWhatItEvictsInOneBatch() throws Exception {
    KeyedStateBackend<Long> backend = open("rocksdb-incremental", 3, null, 0);
    try {
      ValueState<Long> count = backend.getState(COUNT);
      RocksDBWriteCache cache = cacheOf(backend);
      for (long k = 0; k < 20; k++) {
        backend.setCurrentKey(k);
        assertThat(count.value()).isNull(); // a read that misses: cached, evicting when full
        count.update(k * 10);
        assertThat(cache.size()).isLessThanOrEqualTo(3);
      }
      assertThat(cache.evictions()).isEqualTo(17);
      assertThat(cache.writesAround()).isZero();
      assertThat(cache.pendingWrites()).as("far below the batch size").isEqualTo(17);
      assertThat(inRocksDB(backend, 0, 20)).as("nothing written yet").isZero();
      for (long k = 0; k < 20; k++) {
        backend.setCurrentKey(k);
        assertThat(count.value()).as("key %s, evicted and pending", k).isEqualTo(k * 10);
      }

      backend.snapshot(1).release();

      assertThat(cache.pendingWrites()).isZero();
      assertThat(inRocksDB(backend, 0, 20)).isEqualTo(20);
    } finally {
      backend.close();
    }
  }

  /** How many of the keys from {@code from} to {@code to} (exclusive) RocksDB itself holds. */
  private static int inRocksDB(KeyedStateBackend<Long> backend, long from, long to)
      throws Exception {
    int held = 0;
    for (long k = from; k < to; k++) {
      backend.setCurrentKey(k);
      held += inRocksDB(backend, "count") != null ? 1 : 0;
    }
    return held;
  }

  @Test
  void writesThatMissAFullCacheReachRocksDBABatchAtATime() throws Exception {
    // A write is a key of 10 bytes (key group and long) and a value of 8: batches of three.
    KeyedStateBackend<Long> backend = open("rocksdb-incremental", 3, "50b", null, 0);
    try {
      ValueState<Long> count = backend.getState(COUNT);
      RocksDBWriteCache cache = cacheOf(backend);
      for (long k = 0; k < 20; k++) {
        backend.setCurrentKey(k);
        count.update(k * 10);
      }
      assertThat(cache.size()).isEqualTo(3);
      assertThat(cache.evictions()).as("blind writes evict nothing").isZero();
      assertThat(cache.writesAround()).isEqualTo(17);
      assertThat(cache.pendingWrites()).isEqualTo(2);
      assertThat(inRocksDB(backend, 0, 3)).as("cached").isZero();
      assertThat(inRocksDB(backend, 3, 18)).as("five batches written").isEqualTo(15);
      assertThat(inRocksDB(backend, 18, 20)).as("pending").isZero();

      backend.setCurrentKey(1L);
      count.update(-1L); // cached: stays in the cache
      backend.setCurrentKey(10L);
      count.clear(); // not cached, the cache full: a pending delete
      assertThat(inRocksDB(backend, "count")).as("not deleted yet").isNotNull();
      assertThat(cache.writesAround()).isEqualTo(18);
      assertThat(cache.pendingWrites()).isEqualTo(3);
      for (long k = 0; k < 20; k++) {
        backend.setCurrentKey(k);
        Long expected = k == 1 ? Long.valueOf(-1L) : k == 10 ? null : Long.valueOf(k * 10);
        assertThat(count.value()).as("key %s", k).isEqualTo(expected);
      }

      cache.flush();

      assertThat(cache.pendingWrites()).isZero();
      for (long k = 0; k < 20; k++) {
        backend.setCurrentKey(k);
        byte[] stored = inRocksDB(backend, "count");
        Long expected = k == 1 ? Long.valueOf(-1L) : k == 10 ? null : Long.valueOf(k * 10);
        assertThat(
                stored == null
                    ? null
                    : Types.LONG
                        .createSerializer()
                        .deserialize(new io.weir.api.typeutils.DataInputDeserializer(stored)))
            .as("key %s in RocksDB", k)
            .isEqualTo(expected);
      }
    } finally {
      backend.close();
    }
  }

  /** 1.8 MB of pending writes reach RocksDB in several serialized batches, all of them. */
  @Test
  void manyPendingWritesAreWrittenInPieces() throws Exception {
    KeyedStateBackend<Long> backend = open("rocksdb-incremental", 1, "4mb", null, 0);
    try {
      ValueState<Long> count = backend.getState(COUNT);
      for (long k = 0; k < 100_000; k++) {
        backend.setCurrentKey(k);
        count.update(k + 1);
      }
      assertThat(cacheOf(backend).pendingWrites()).isEqualTo(99_999);

      cacheOf(backend).flush();

      assertThat(cacheOf(backend).pendingWrites()).isZero();
      assertThat(inRocksDB(backend, 0, 100_000)).isEqualTo(100_000);
      for (long k = 0; k < 100_000; k += 997) {
        backend.setCurrentKey(k);
        assertThat(count.value()).isEqualTo(k + 1);
      }
    } finally {
      backend.close();
    }
  }

  @Test
  void aWriteBatchSizeThatIsNotPositiveNamesTheKey() {
    assertThatThrownBy(() -> open("rocksdb-incremental", 3, "0b", null, 0))
        .hasMessageContaining("state.backend.rocksdb.write-batch-size")
        .hasMessageContaining("positive");
  }

  /**
   * Every kind of snapshot holds the updates and clears the cache had not written to RocksDB yet,
   * and none made after its synchronous part, even when they reach RocksDB before the upload.
   */
  @ParameterizedTest
  @ValueSource(strings = {"rocksdb-incremental", "rocksdb-full", "rocksdb-canonical", "savepoint"})
  void everySnapshotHoldsWhatTheCacheHadNotWritten(String kind) throws Exception {
    String mode = kind.equals("savepoint") ? "rocksdb-incremental" : kind;
    CheckpointStorage storage = storage();
    KeyedStateBackend<Long> backend = open(mode, 1000, null, 0);
    KeyedStateHandle handle;
    try {
      ValueState<Long> count = backend.getState(COUNT);
      for (long k = 0; k < 50; k++) {
        backend.setCurrentKey(k);
        count.update(k);
      }
      TestBackends.checkpoint(backend, 1, storage);
      backend.notifyCheckpointComplete(1);
      // Now in RocksDB; change half of them and clear a fifth in the cache only.
      for (long k = 0; k < 50; k++) {
        backend.setCurrentKey(k);
        if (k % 5 == 0) {
          count.clear();
        } else if (k % 2 == 0) {
          count.update(k + 1000);
        }
      }
      backend.setCurrentKey(10L);
      assertThat(inRocksDB(backend, "count")).as("cleared only in the cache").isNotNull();
      backend.setCurrentKey(12L);
      assertThat(
              Types.LONG
                  .createSerializer()
                  .deserialize(
                      new io.weir.api.typeutils.DataInputDeserializer(inRocksDB(backend, "count"))))
          .as("updated only in the cache")
          .isEqualTo(12L);
      assertThat(cacheOf(backend).dirtyEntries()).isEqualTo(30);

      KeyedStateSnapshot snapshot =
          kind.equals("savepoint")
              ? backend.snapshot(2, CheckpointOptions.savepoint(CheckpointOptions.Type.SAVEPOINT))
              : backend.snapshot(2);
      // After the barrier, and written to RocksDB before the upload: must not be in the snapshot.
      for (long k = 0; k < 50; k++) {
        backend.setCurrentKey(k);
        count.update(-k);
      }
      cacheOf(backend).flush();
      handle = snapshot.persist(2, storage, "'op'");
    } finally {
      backend.close();
    }

    KeyedStateBackend<Long> restored = open(mode, 0, handle, 2);
    try {
      ValueState<Long> count = restored.getState(COUNT);
      for (long k = 0; k < 50; k++) {
        restored.setCurrentKey(k);
        Long expected = k % 5 == 0 ? null : k % 2 == 0 ? k + 1000 : k;
        assertThat(count.value()).as("key %s after a %s", k, kind).isEqualTo(expected);
      }
    } finally {
      restored.close();
    }
  }

  @Test
  void aNegativeSizeNamesTheKey() {
    Configuration conf = TestBackends.configuration("rocksdb-incremental", dir);
    conf.setString(RocksDBOptions.WRITE_CACHE_SIZE.key(), "-1");

    assertThatThrownBy(() -> TestBackends.create(conf, Types.LONG.createSerializer(), 0, 1, null))
        .isInstanceOf(NonRecoverableException.class)
        .hasMessageContaining("state.backend.rocksdb.write-cache.size")
        .hasMessageContaining("-1");
    assertThat(dir).isEmptyDirectory();
  }

  @Test
  void aSizeThatIsNoNumberNamesTheKey() {
    Configuration conf = TestBackends.configuration("rocksdb-incremental", dir);
    conf.setString(RocksDBOptions.WRITE_CACHE_SIZE.key(), "lots");

    assertThatThrownBy(() -> new RocksDBStateBackendFactory().validate(conf))
        .hasMessageContaining("state.backend.rocksdb.write-cache.size")
        .hasMessageContaining("lots");
    assertThatThrownBy(() -> TestBackends.create(conf, Types.LONG.createSerializer(), 0, 1, null))
        .hasMessageContaining("state.backend.rocksdb.write-cache.size")
        .hasMessageContaining("lots");
  }

  @Test
  void sizeZeroIsNoCache() throws Exception {
    KeyedStateBackend<Long> backend = open("rocksdb-incremental", 0, null, 0);
    try {
      assertThat(((RocksDBKeyedStateBackend<Long>) backend).singleValues)
          .isInstanceOf(SingleValueStore.Direct.class);
      ValueState<Long> count = backend.getState(COUNT);
      backend.setCurrentKey(1L);
      count.update(5L);
      assertThat(inRocksDB(backend, "count")).isNotNull();
    } finally {
      backend.close();
    }
  }

  private static final io.weir.api.state.MapStateDescriptor<Integer, Long> SUMS =
      new io.weir.api.state.MapStateDescriptor<>("sums", Types.INT, Types.LONG);

  /** What RocksDB itself holds for entry {@code entry} of the current key's map state "sums". */
  private static Long sumInRocksDB(KeyedStateBackend<Long> backend, int entry) throws Exception {
    RocksDBKeyedStateBackend<Long> rocks = (RocksDBKeyedStateBackend<Long>) backend;
    io.weir.api.typeutils.DataOutputSerializer key =
        new io.weir.api.typeutils.DataOutputSerializer(32);
    key.write(rocks.currentMapPrefix());
    Types.INT.createSerializer().serialize(entry, key);
    byte[] value = rocks.db.get(rocks.columns.get("sums").handle, key.getCopyOfBuffer());
    return value == null
        ? null
        : Types.LONG
            .createSerializer()
            .deserialize(new io.weir.api.typeutils.DataInputDeserializer(value));
  }

  @Test
  void aMapEntryReadAndWrittenPerRecordIsReadFromRocksDBOnceAndWrittenWhenFlushed()
      throws Exception {
    KeyedStateBackend<Long> backend = open("rocksdb-incremental", 100, null, 0);
    try {
      io.weir.api.state.MapState<Integer, Long> sums = backend.getMapState(SUMS);
      RocksDBWriteCache cache = cacheOf(backend);
      for (int i = 0; i < 100; i++) {
        backend.setCurrentKey(7L);
        Long now = sums.get(3);
        sums.put(3, now == null ? 1 : now + 1);
      }
      backend.setCurrentKey(8L);
      sums.put(3, 42L);
      sums.put(4, 43L);
      sums.remove(4);
      assertThat(cache.misses()).as("7's entry read once; 8's written blind").isEqualTo(1);
      assertThat(cache.hits()).isEqualTo(99);
      backend.setCurrentKey(7L);
      assertThat(sums.get(3)).isEqualTo(100L);
      assertThat(sums.contains(3)).isTrue();
      assertThat(sums.contains(4)).isFalse();
      assertThat(sumInRocksDB(backend, 3)).as("only in the cache").isNull();

      backend.snapshot(1).release();

      assertThat(cache.dirtyEntries()).isZero();
      assertThat(sumInRocksDB(backend, 3)).isEqualTo(100L);
      backend.setCurrentKey(8L);
      assertThat(sumInRocksDB(backend, 3)).isEqualTo(42L);
      assertThat(sumInRocksDB(backend, 4)).isNull();
      assertThat(sums.get(3)).isEqualTo(42L);
    } finally {
      backend.close();
    }
  }

  @Test
  void readingAMapWholeSeesItsCachedEntriesAndThenGoesPastTheCache() throws Exception {
    KeyedStateBackend<Long> backend = open("rocksdb-incremental", 100, null, 0);
    try {
      io.weir.api.state.MapState<Integer, Long> sums = backend.getMapState(SUMS);
      RocksDBWriteCache cache = cacheOf(backend);
      backend.setCurrentKey(1L);
      sums.put(1, 10L);
      sums.put(2, 20L);
      sums.put(3, 30L);
      sums.remove(2);
      assertThat(cache.dirtyEntries()).isEqualTo(3);

      java.util.Map<Integer, Long> whole = new java.util.HashMap<>();
      sums.entries().forEach(e -> whole.put(e.getKey(), e.getValue()));
      assertThat(whole).isEqualTo(java.util.Map.of(1, 10L, 3, 30L));
      assertThat(cache.dirtyEntries()).as("flushed for the scan").isZero();

      sums.put(4, 40L);
      assertThat(sumInRocksDB(backend, 4)).as("past the cache from now on").isEqualTo(40L);
      sums.put(1, 11L);
      assertThat(sums.get(1)).isEqualTo(11L);
      assertThat(sums.isEmpty()).isFalse();
      sums.clear();
      assertThat(sums.isEmpty()).isTrue();
      assertThat(sums.get(1)).isNull();
      backend.setCurrentKey(2L);
      sums.put(1, 5L);
      assertThat(cache.dirtyEntries()).isZero();
    } finally {
      backend.close();
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"rocksdb-incremental", "rocksdb-full", "rocksdb-canonical"})
  void aSnapshotHoldsTheMapEntriesTheCacheHadNotWritten(String mode) throws Exception {
    CheckpointStorage storage = storage();
    KeyedStateBackend<Long> backend = open(mode, 1000, null, 0);
    KeyedStateHandle handle;
    try {
      io.weir.api.state.MapState<Integer, Long> sums = backend.getMapState(SUMS);
      for (long k = 0; k < 30; k++) {
        backend.setCurrentKey(k);
        sums.put(0, k);
        sums.put(1, k + 100);
        if (k % 3 == 0) {
          sums.remove(1);
        }
      }
      KeyedStateSnapshot snapshot = backend.snapshot(1);
      for (long k = 0; k < 30; k++) {
        backend.setCurrentKey(k);
        sums.put(0, -k); // after the barrier: not in the snapshot
      }
      cacheOf(backend).flush();
      handle = snapshot.persist(1, storage, "'op'");
    } finally {
      backend.close();
    }

    KeyedStateBackend<Long> restored = open(mode, 0, handle, 1);
    try {
      io.weir.api.state.MapState<Integer, Long> sums = restored.getMapState(SUMS);
      for (long k = 0; k < 30; k++) {
        restored.setCurrentKey(k);
        assertThat(sums.get(0)).as("key %s after a %s", k, mode).isEqualTo(k);
        assertThat(sums.get(1)).isEqualTo(k % 3 == 0 ? null : k + 100);
      }
    } finally {
      restored.close();
    }
  }

  @Test
  void aCachedStateNameCannotAlsoBeAListOrAMap() throws Exception {
    KeyedStateBackend<Long> backend = open("rocksdb-incremental", 10, null, 0);
    try {
      backend.getState(COUNT);
      assertThatThrownBy(
              () ->
                  backend.getListState(
                      new io.weir.api.state.ListStateDescriptor<>("count", Types.LONG)))
          .hasMessageContaining("'count'")
          .hasMessageContaining("Give each state its own name");
      assertThatThrownBy(
              () ->
                  backend.getMapState(
                      new io.weir.api.state.MapStateDescriptor<>("count", Types.INT, Types.LONG)))
          .hasMessageContaining("'count'");
    } finally {
      backend.close();
    }
  }
}

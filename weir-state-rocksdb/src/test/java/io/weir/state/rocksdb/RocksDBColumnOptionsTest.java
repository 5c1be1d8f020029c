package io.weir.state.rocksdb;

import static org.assertj.core.api.Assertions.assertThat;

import io.weir.api.config.Configuration;
import io.weir.api.state.ValueState;
import io.weir.api.state.ValueStateDescriptor;
import io.weir.api.typeutils.Types;
import io.weir.runtime.checkpoint.KeyedStateHandle;
import io.weir.runtime.state.KeyedStateBackend;
import io.weir.runtime.storage.CheckpointStorage;
import io.weir.runtime.storage.FileSystemCheckpointStorage;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The column options Weir sets reach RocksDB, as its options file shows them: the memtable's insert
 * hint ({@link RocksDBOptions#MEMTABLE_INSERT_HINT}: the prefix extractor on the key-group prefix,
 * or none when it is off) and the compression ({@link RocksDBOptions#COMPRESSION}); state written
 * in rising and in falling key order reads back the same under them, and a checkpoint of files
 * compressed otherwise restores under the default.
 */
class RocksDBColumnOptionsTest {

  private static final ValueStateDescriptor<Long> COUNT =
      new ValueStateDescriptor<>("count", Types.LONG);

  @TempDir Path dir;

  @Test
  void byDefaultTheHintIsOnOnTheKeyGroupPrefixAndSstFilesAreCompressedWithLz4() throws Exception {
    assertThat(countOptions(TestBackends.configuration("rocksdb-incremental", dir)))
        .contains("memtable_insert_with_hint_prefix_extractor=rocksdb.FixedPrefix.2")
        .containsPattern("(?m)^\\s*compression=kLZ4Compression$");
  }

  @Test
  void theHintCanBeTurnedOff() throws Exception {
    Configuration conf = TestBackends.configuration("rocksdb-incremental", dir);
    conf.setString(RocksDBOptions.MEMTABLE_INSERT_HINT.key(), "false");
    assertThat(countOptions(conf)).contains("memtable_insert_with_hint_prefix_extractor=nullptr");
  }

  @Test
  void theCompressionCanBeChosen() throws Exception {
    Configuration conf = TestBackends.configuration("rocksdb-incremental", dir);
    conf.setString(RocksDBOptions.COMPRESSION.key(), "snappy");
    assertThat(countOptions(conf)).containsPattern("(?m)^\\s*compression=kSnappyCompression$");
  }

  @ParameterizedTest
  @ValueSource(strings = {"rocksdb-incremental", "rocksdb-full"})
  void aCheckpointOfSnappyFilesRestoresUnderTheDefault(String mode) throws Exception {
    CheckpointStorage storage =
        new FileSystemCheckpointStorage(dir.resolve("checkpoints").toUri(), "0".repeat(32), 64);
    Configuration snappy = TestBackends.configuration(mode, dir.resolve("snappy"));
    snappy.setString(RocksDBOptions.COMPRESSION.key(), "snappy");
    snappy.set(RocksDBOptions.WRITE_CACHE_SIZE, 0);
    KeyedStateBackend<Long> backend =
        TestBackends.create(snappy, Types.LONG.createSerializer(), 0, 1, null);
    KeyedStateHandle handle;
    try {
      ValueState<Long> count = backend.getState(COUNT);
      for (long k = 0; k < 20_000; k++) {
        backend.setCurrentKey(k);
        count.update(k * 3);
      }
      handle = TestBackends.checkpoint(backend, 1, storage);
    } finally {
      backend.close();
    }

    KeyedStateBackend<Long> restored =
        TestBackends.create(
            TestBackends.configuration(mode, dir.resolve("lz4")),
            Types.LONG.createSerializer(),
            0,
            1,
            TestBackends.restored(1, List.of(handle), storage));
    try {
      ValueState<Long> count = restored.getState(COUNT);
      for (long k = 0; k < 20_000; k++) {
        restored.setCurrentKey(k);
        assertThat(count.value()).isEqualTo(k * 3);
      }
      assertThat(columnSection(newestOptionsFile(dir.resolve("lz4")), "count"))
          .containsPattern("(?m)^\\s*compression=kLZ4Compression$");
    } finally {
      restored.close();
    }
  }

  /** Writes and reads state under {@code conf}, returning RocksDB's options of its column. */
  private String countOptions(Configuration conf) throws Exception {
    // No write cache: every write goes through the memtable.
    conf.set(RocksDBOptions.WRITE_CACHE_SIZE, 0);
    KeyedStateBackend<Long> backend =
        TestBackends.create(conf, Types.LONG.createSerializer(), 0, 1, null);
    try {
      ValueState<Long> count = backend.getState(COUNT);
      for (long k = 0; k < 20_000; k++) {
        backend.setCurrentKey(k);
        count.update(k);
      }
      for (long k = 40_000; k >= 20_000; k--) {
        backend.setCurrentKey(k);
        count.update(k);
      }
      for (long k = 0; k <= 40_000; k++) {
        backend.setCurrentKey(k);
        assertThat(count.value()).isEqualTo(k);
      }
      return columnSection(newestOptionsFile(dir), "count");
    } finally {
      backend.close();
    }
  }

  private static Path newestOptionsFile(Path dir) throws IOException {
    try (Stream<Path> files = Files.walk(dir)) {
      return files
          .filter(f -> f.getFileName().toString().startsWith("OPTIONS-"))
          .max(Comparator.comparingLong(RocksDBColumnOptionsTest::optionsNumber))
          .orElseThrow(() -> new AssertionError("RocksDB wrote no OPTIONS file under " + dir));
    }
  }

  private static long optionsNumber(Path file) {
    String name = file.getFileName().toString();
    return Long.parseLong(name.substring("OPTIONS-".length()).replaceAll("\\D", ""));
  }

  private static String columnSection(Path optionsFile, String column) {
    try {
      String text = Files.readString(optionsFile);
      int start = text.indexOf("[CFOptions \"" + column + "\"]");
      assertThat(start).as("column family %s in %s", column, optionsFile).isNotNegative();
      int end = text.indexOf("\n[", start + 1);
      return end < 0 ? text.substring(start) : text.substring(start, end);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}

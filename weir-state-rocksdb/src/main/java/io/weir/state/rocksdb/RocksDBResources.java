package io.weir.state.rocksdb;

import io.weir.api.config.Configuration;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import org.rocksdb.BlockBasedTableConfig;
import org.rocksdb.BloomFilter;
import org.rocksdb.Cache;
import org.rocksdb.ColumnFamilyOptions;
import org.rocksdb.CompactionStyle;
import org.rocksdb.CompressionType;
import org.rocksdb.DBOptions;
import org.rocksdb.LRUCache;
import org.rocksdb.WriteBufferManager;

/**
 * The native resources RocksDB instances share: per slot (the subtasks with the same index of one
 * job, as Flink's slot sharing places them) one block cache and one write-buffer manager charging
 * memtables to that cache, so that the slot's RocksDB memory stays within {@code
 * state.backend.rocksdb.memory.fixed-per-slot}. Reference-counted: the last instance of a slot to
 * close frees them.
 */
final class RocksDBResources {

  private record SlotKey(Object jobScope, int subtaskIndex) {}

  /** One slot's shared cache and write-buffer manager. */
  static final class Slot {
    private final SlotKey key;
    final Cache cache;
    final WriteBufferManager writeBufferManager;

    /** The cache's capacity: {@code state.backend.rocksdb.memory.fixed-per-slot}. */
    final long capacity;

    private int users;

    private Slot(SlotKey key, Cache cache, WriteBufferManager writeBufferManager, long capacity) {
      this.key = key;
      this.cache = cache;
      this.writeBufferManager = writeBufferManager;
      this.capacity = capacity;
    }
  }

  private static final Map<SlotKey, Slot> SLOTS = new HashMap<>();

  private RocksDBResources() {}

  /** The slot of {@code subtaskIndex} of the job {@code jobScope}, created on first use. */
  static Slot acquire(Object jobScope, int subtaskIndex, Configuration conf) {
    synchronized (SLOTS) {
      SlotKey key = new SlotKey(jobScope, subtaskIndex);
      Slot slot = SLOTS.get(key);
      if (slot == null) {
        long total = conf.get(RocksDBOptions.FIXED_PER_SLOT).bytes();
        double writeRatio =
            ratio(
                conf,
                RocksDBOptions.WRITE_BUFFER_RATIO.key(),
                conf.get(RocksDBOptions.WRITE_BUFFER_RATIO));
        double highPrio =
            ratio(
                conf,
                RocksDBOptions.HIGH_PRIO_POOL_RATIO.key(),
                conf.get(RocksDBOptions.HIGH_PRIO_POOL_RATIO));
        Cache cache = new LRUCache(total, -1, false, highPrio);
        slot =
            new Slot(key, cache, new WriteBufferManager((long) (total * writeRatio), cache), total);
        SLOTS.put(key, slot);
      }
      slot.users++;
      return slot;
    }
  }

  static void release(Slot slot) {
    synchronized (SLOTS) {
      if (--slot.users == 0) {
        SLOTS.remove(slot.key);
        slot.writeBufferManager.close();
        slot.cache.close();
      }
    }
  }

  /** What a slot's cache tells: its usage, pinned usage or capacity. */
  interface CacheFigure {
    long of(Slot slot);
  }

  /**
   * The sum of {@code figure} over every slot of the process now, 0 when none is open; under the
   * lock that closes a slot, so that no cache is read after it was freed.
   */
  static long sum(CacheFigure figure) {
    synchronized (SLOTS) {
      long total = 0;
      for (Slot slot : SLOTS.values()) {
        total += figure.of(slot);
      }
      return total;
    }
  }

  private static double ratio(Configuration conf, String key, double value) {
    if (!(value > 0 && value < 1)) {
      throw new IllegalArgumentException(
          key + " must be between 0 and 1 (exclusive), not " + value);
    }
    return value;
  }

  /** The options of one instance; the caller closes them with the instance. */
  static DBOptions dbOptions(Configuration conf, Slot slot) {
    DBOptions options =
        new DBOptions()
            .setCreateIfMissing(true)
            .setCreateMissingColumnFamilies(true)
            .setWriteBufferManager(slot.writeBufferManager)
            .setMaxBackgroundJobs(positive(conf, RocksDBOptions.MAX_BACKGROUND_THREADS))
            .setMaxOpenFiles(conf.get(RocksDBOptions.MAX_OPEN_FILES))
            // Weir writes no WAL and keeps no RocksDB info log around: state is recovered from
            // checkpoints, never from the local files.
            .setAvoidFlushDuringShutdown(true)
            .setKeepLogFileNum(1)
            .setMaxLogFileSize(1024 * 1024)
            .setStatsDumpPeriodSec(0);
    return options;
  }

  /** Column family options with the native filter they use (or null); closed together. */
  record ColumnOptions(ColumnFamilyOptions options, BloomFilter filter) implements AutoCloseable {
    @Override
    public void close() {
      options.close();
      if (filter != null) {
        filter.close();
      }
    }
  }

  /** The options every column family (state) gets. */
  static ColumnOptions columnOptions(Configuration conf, Slot slot) {
    BloomFilter filter =
        conf.get(RocksDBOptions.USE_BLOOM_FILTER)
            ? new BloomFilter(positive(conf, RocksDBOptions.BLOOM_FILTER_BITS_PER_KEY), false)
            : null;
    BlockBasedTableConfig table =
        new BlockBasedTableConfig()
            .setBlockCache(slot.cache)
            .setBlockSize(conf.get(RocksDBOptions.BLOCK_SIZE).bytes())
            .setCacheIndexAndFilterBlocks(true)
            .setCacheIndexAndFilterBlocksWithHighPriority(true)
            .setPinTopLevelIndexAndFilter(true);
    if (filter != null) {
      table.setFilterPolicy(filter);
    }
    ColumnFamilyOptions options =
        baseColumnOptions(conf)
            .setTableFormatConfig(table)
            .setCompactionStyle(CompactionStyle.LEVEL)
            .setLevelCompactionDynamicLevelBytes(true)
            .setWriteBufferSize(conf.get(RocksDBOptions.WRITE_BUFFER_SIZE).bytes())
            .setMaxWriteBufferNumber(positive(conf, RocksDBOptions.MAX_WRITE_BUFFER_NUMBER))
            .setTargetFileSizeBase(conf.get(RocksDBOptions.TARGET_FILE_SIZE_BASE).bytes())
            .setMaxBytesForLevelBase(conf.get(RocksDBOptions.MAX_SIZE_LEVEL_BASE).bytes())
            .setCompressionType(compression(conf.get(RocksDBOptions.COMPRESSION)))
            .setMergeOperatorName("stringappendtest");
    return new ColumnOptions(options, filter);
  }

  /**
   * New column family options with what RocksJava has no setter for: the memtable's insert hint per
   * key group ({@link RocksDBOptions#MEMTABLE_INSERT_HINT}), which RocksDB takes only from an
   * options string.
   */
  private static ColumnFamilyOptions baseColumnOptions(Configuration conf) {
    if (!conf.get(RocksDBOptions.MEMTABLE_INSERT_HINT)) {
      return new ColumnFamilyOptions();
    }
    Properties hint = new Properties();
    hint.setProperty(
        "memtable_insert_with_hint_prefix_extractor",
        "rocksdb.FixedPrefix." + RocksDBKeyedStateBackend.KEY_GROUP_BYTES);
    ColumnFamilyOptions options = ColumnFamilyOptions.getColumnFamilyOptionsFromProps(hint);
    if (options == null) {
      throw new IllegalStateException(
          "RocksDB refused the memtable insert hint of "
              + RocksDBOptions.MEMTABLE_INSERT_HINT.key()
              + "; set it to false to run without it");
    }
    return options;
  }

  private static int positive(Configuration conf, io.weir.api.config.ConfigOption<Integer> o) {
    int v = conf.get(o);
    if (v <= 0) {
      throw new IllegalArgumentException(o.key() + " must be positive, not " + v);
    }
    return v;
  }

  private static CompressionType compression(String name) {
    return switch (name.trim().toLowerCase(Locale.ROOT)) {
      case "none", "no" -> CompressionType.NO_COMPRESSION;
      case "snappy" -> CompressionType.SNAPPY_COMPRESSION;
      case "lz4" -> CompressionType.LZ4_COMPRESSION;
      case "zstd" -> CompressionType.ZSTD_COMPRESSION;
      default ->
          throw new IllegalArgumentException(
              RocksDBOptions.COMPRESSION.key()
                  + " must be one of none, snappy, lz4, zstd, not '"
                  + name
                  + "'");
    };
  }
}

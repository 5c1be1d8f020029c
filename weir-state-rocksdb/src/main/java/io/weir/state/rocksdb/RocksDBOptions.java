package io.weir.state.rocksdb;

import io.weir.api.config.ConfigOption;
import io.weir.api.config.ConfigOptionProvider;
import io.weir.api.config.ConfigOptions;
import io.weir.api.config.Configuration;
import io.weir.api.config.MemorySize;
import java.util.Collection;

/**
 * The {@code state.backend.rocksdb.*} configuration keys, with Flink's names where Flink has the
 * same setting. Memory is bounded per slot: the RocksDB instances of all operators of one subtask
 * index of a job share one block cache, and their write buffers (memtables) are charged to that
 * cache through one write-buffer manager, so the total stays within {@link #FIXED_PER_SLOT}.
 */
public final class RocksDBOptions {

  private RocksDBOptions() {}

  public static final ConfigOption<String> LOCAL_DIRECTORIES =
      ConfigOptions.key("state.backend.rocksdb.localdir")
          .stringType()
          .noDefaultValue()
          .withDescription(
              "Where RocksDB keeps its working files, one directory per operator subtask, removed"
                  + " when the subtask ends. Several directories may be given, separated by ','"
                  + " or the path separator; subtasks are spread over them. Default: java.io.tmpdir.");

  public static final ConfigOption<String> NATIVE_LIBRARY_DIRECTORY =
      ConfigOptions.key("state.backend.rocksdb.native-library.dir")
          .stringType()
          .noDefaultValue()
          .withDescription(
              "Where the RocksDB native library is extracted, one copy per rocksdbjni version (in"
                  + " a subdirectory named after it), and loaded from by every process; unset:"
                  + " java.io.tmpdir/weir-rocksdb-native.");

  public static final ConfigOption<MemorySize> FIXED_PER_SLOT =
      ConfigOptions.key("state.backend.rocksdb.memory.fixed-per-slot")
          .memoryType()
          .defaultValue(MemorySize.ofMebiBytes(256))
          .withDescription(
              "Memory shared by the RocksDB instances of one slot (block cache, index and filter"
                  + " blocks, and memtables).");

  public static final ConfigOption<Double> WRITE_BUFFER_RATIO =
      ConfigOptions.key("state.backend.rocksdb.memory.write-buffer-ratio")
          .doubleType()
          .defaultValue(0.5)
          .withDescription("The share of the slot's memory that memtables may take.");

  public static final ConfigOption<Double> HIGH_PRIO_POOL_RATIO =
      ConfigOptions.key("state.backend.rocksdb.memory.high-prio-pool-ratio")
          .doubleType()
          .defaultValue(0.1)
          .withDescription("The share of the block cache reserved for index and filter blocks.");

  public static final ConfigOption<Integer> MAX_BACKGROUND_THREADS =
      ConfigOptions.key("state.backend.rocksdb.thread.num")
          .intType()
          .defaultValue(2)
          .withDescription("Background threads of each instance for flushes and compactions.");

  public static final ConfigOption<MemorySize> WRITE_BUFFER_SIZE =
      ConfigOptions.key("state.backend.rocksdb.writebuffer.size")
          .memoryType()
          .defaultValue(MemorySize.ofMebiBytes(16))
          .withDescription(
              "Size of one memtable, per column family (state). Small by default: a lookup in"
                  + " a memtable slows down as it grows, and keyed state is read on every record.");

  public static final ConfigOption<Boolean> MEMTABLE_INSERT_HINT =
      ConfigOptions.key("state.backend.rocksdb.memtable.insert-hint")
          .booleanType()
          .defaultValue(true)
          .withDescription(
              "Per key group, the memtable remembers where its last write went in and starts the"
                  + " next write of that key group there, instead of at the top of the skip"
                  + " list: keys that come in rising order within a key group (sequence numbers,"
                  + " time-ordered ids) skip most of the search. RocksDB's"
                  + " memtable_insert_with_hint_prefix_extractor on the 2-byte key-group prefix"
                  + " that starts every key; about 250 bytes of memtable per key group.");

  public static final ConfigOption<Integer> MAX_WRITE_BUFFER_NUMBER =
      ConfigOptions.key("state.backend.rocksdb.writebuffer.count")
          .intType()
          .defaultValue(2)
          .withDescription("Memtables per column family, the one being written included.");

  public static final ConfigOption<MemorySize> BLOCK_SIZE =
      ConfigOptions.key("state.backend.rocksdb.block.blocksize")
          .memoryType()
          .defaultValue(new MemorySize(4 * 1024))
          .withDescription("Size of a data block of an SST file.");

  public static final ConfigOption<MemorySize> TARGET_FILE_SIZE_BASE =
      ConfigOptions.key("state.backend.rocksdb.compaction.level.target-file-size-base")
          .memoryType()
          .defaultValue(MemorySize.ofMebiBytes(64))
          .withDescription("Target size of an SST file in level 1.");

  public static final ConfigOption<MemorySize> MAX_SIZE_LEVEL_BASE =
      ConfigOptions.key("state.backend.rocksdb.compaction.level.max-size-level-base")
          .memoryType()
          .defaultValue(MemorySize.ofMebiBytes(256))
          .withDescription("Total size of level 1; each further level is 10 times larger.");

  public static final ConfigOption<String> COMPRESSION =
      ConfigOptions.key("state.backend.rocksdb.compression")
          .stringType()
          .defaultValue("lz4")
          .withDescription(
              "Compression of SST files: none, snappy, lz4 or zstd. LZ4 by default: flushes and"
                  + " compactions, which write every SST file, spend half the CPU they spend on"
                  + " Snappy (RocksDB's and Flink's default) for files of about the same size.");

  public static final ConfigOption<Integer> MAX_OPEN_FILES =
      ConfigOptions.key("state.backend.rocksdb.files.open")
          .intType()
          .defaultValue(-1)
          .withDescription("Files each instance keeps open; -1 for no limit.");

  public static final ConfigOption<Boolean> USE_BLOOM_FILTER =
      ConfigOptions.key("state.backend.rocksdb.use-bloom-filter")
          .booleanType()
          .defaultValue(false)
          .withDescription(
              "A bloom filter per SST file, so that reads of absent keys skip the file; costs"
                  + " CPU on every read and memory in the block cache.");

  public static final ConfigOption<Integer> BLOOM_FILTER_BITS_PER_KEY =
      ConfigOptions.key("state.backend.rocksdb.bloom-filter.bits-per-key")
          .intType()
          .defaultValue(10)
          .withDescription(
              "Bits per key of the bloom filter (10 gives about 1 % false positives).");

  public static final ConfigOption<Integer> TRANSFER_THREADS =
      ConfigOptions.key("state.backend.rocksdb.checkpoint.transfer.thread.num")
          .intType()
          .defaultValue(4)
          .withDescription(
              "Threads of each subtask that upload files of an incremental checkpoint and"
                  + " download them on restore.");

  public static final ConfigOption<Integer> TIMER_CACHE_SIZE =
      ConfigOptions.key("state.backend.rocksdb.timer-service.cache-size")
          .intType()
          .defaultValue(128)
          .withDescription(
              "Timers of each key group kept on the heap in front of RocksDB (the earliest ones,"
                  + " written through): registering a timer that is already there and firing one"
                  + " need not read RocksDB. As Flink's key of the same name.");

  public static final ConfigOption<Integer> WRITE_CACHE_SIZE =
      ConfigOptions.key("state.backend.rocksdb.write-cache.size")
          .intType()
          .defaultValue(100_000)
          .withDescription(
              "Entries of value, reducing and aggregating state each RocksDB backend (operator"
                  + " subtask) keeps on the heap in front of RocksDB, as serialized bytes, written"
                  + " back: a key used again is read and updated without RocksDB, which sees its"
                  + " latest value when the entry is evicted (least recently used, approximated)"
                  + " or before a checkpoint. Costs about 100 bytes per entry plus the key and"
                  + " value; 0 disables the cache. Map and list state are never cached.");

  public static final ConfigOption<MemorySize> WRITE_BATCH_SIZE =
      ConfigOptions.key("state.backend.rocksdb.write-batch-size")
          .memoryType()
          .defaultValue(MemorySize.ofMebiBytes(2))
          .withDescription(
              "Bytes of keys and values the write cache gathers before it writes them to RocksDB"
                  + " in write batches: the entries it evicts, the writes that miss it when it is"
                  + " full, and its dirty entries when it is flushed before a snapshot; also the"
                  + " size of the batches that restoring canonical state and migrating state"
                  + " write. One batch of many costs RocksDB far less than as many single"
                  + " writes; reads see the gathered writes meanwhile. As Flink's key of the same"
                  + " name.");

  public static final ConfigOption<String> FULL_CHECKPOINT_FORMAT =
      ConfigOptions.key("state.backend.rocksdb.checkpoint.full-format")
          .stringType()
          .defaultValue(RocksDBKeyedStateBackend.FORMAT_NATIVE)
          .withDescription(
              "What a full (non-incremental) checkpoint holds. 'native' (default, as Flink 2.x"
                  + " does): every SST file of a RocksDB checkpoint, copied into the checkpoint's"
                  + " own directory; fast whatever the state's size, compressed like the"
                  + " database, restorable by the RocksDB backend at any parallelism. 'canonical':"
                  + " the key-group format savepoints use, which the heap backend can also"
                  + " restore; every entry is read and written, so it costs CPU in proportion to"
                  + " the state.");

  /** Every option of the RocksDB backend. */
  public static Collection<ConfigOption<?>> all() {
    return ConfigOptionProvider.declaredIn(RocksDBOptions.class);
  }

  /** Makes the RocksDB keys known to the check of unknown keys. */
  public static final class Provider implements ConfigOptionProvider {
    @Override
    public String module() {
      return "weir-state-rocksdb";
    }

    @Override
    public Collection<ConfigOption<?>> options() {
      return all();
    }
  }

  /**
   * Parses every {@code state.backend.rocksdb.*} value of {@code configuration}, so that a value
   * that does not parse is reported, naming its key, before any task runs. Ranges are checked where
   * the values are used, and a failure there fails the job at once.
   */
  static void validate(Configuration configuration) {
    for (ConfigOption<?> option : all()) {
      configuration.getOptional(option);
    }
  }
}

package io.weir.state.rocksdb;

import io.weir.api.config.CheckpointingOptions;
import io.weir.api.config.Configuration;
import io.weir.api.state.AggregatingState;
import io.weir.api.state.AggregatingStateDescriptor;
import io.weir.api.state.ListState;
import io.weir.api.state.ListStateDescriptor;
import io.weir.api.state.MapState;
import io.weir.api.state.MapStateDescriptor;
import io.weir.api.state.ReducingState;
import io.weir.api.state.ReducingStateDescriptor;
import io.weir.api.state.StateDescriptor;
import io.weir.api.state.ValueState;
import io.weir.api.state.ValueStateDescriptor;
import io.weir.api.typeutils.DataOutputSerializer;
import io.weir.api.typeutils.TypeSerializer;
import io.weir.runtime.state.KeyGroupRange;
import io.weir.runtime.state.KeyGroupRangeAssignment;
import io.weir.runtime.state.KeyedStateBackend;
import io.weir.runtime.state.KeyedStateSnapshot;
import io.weir.runtime.state.TaskLocalStateStore;
import io.weir.runtime.state.TimerQueue;
import io.weir.runtime.time.InternalTimerService;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Function;
import java.util.stream.Stream;
import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.DBOptions;
import org.rocksdb.FlushOptions;
import org.rocksdb.ReadOptions;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.WriteOptions;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keyed state of one operator subtask in an embedded RocksDB, one column family per state. Keys are
 * laid out so that key groups are contiguous ranges:
 *
 * <pre>
 * value, list, reducing, aggregating:  keyGroup:2 (big-endian) | key
 * map:                                 keyGroup:2 | varint(key length) | key | map key
 * timers:                              keyGroup:2 | timestamp:8 (sign bit flipped) | key
 * </pre>
 *
 * The key length in map keys makes the prefix of one key unambiguous, so a map is iterated by
 * prefix. List elements are written as {@code int length | bytes} and appended with RocksDB's
 * string-append merge operator, so {@code add} never reads. Nothing is written to RocksDB's WAL:
 * state survives failures through checkpoints only.
 *
 * <p>Value, reducing and aggregating state, and map state's point accesses until the map is first
 * read whole, go through a write-back cache ({@link RocksDBWriteCache}, {@link
 * RocksDBOptions#WRITE_CACHE_SIZE}), which is flushed to RocksDB before anything reads RocksDB
 * otherwise than by a point read of such a state: every snapshot, a migration, a map read whole.
 * List state bypasses it; one state name is one kind.
 *
 * <p>Snapshots are native (a RocksDB checkpoint of hard links, {@link RocksDBNativeSnapshot}):
 * incremental, uploading only new SST files, or full, copying all of them; or canonical (a RocksDB
 * snapshot read on the snapshot thread and written in the key-group format any backend restores,
 * {@link RocksDBFullSnapshot}), for full checkpoints with {@link
 * RocksDBOptions#FULL_CHECKPOINT_FORMAT} {@code canonical}.
 *
 * <p>Task thread only, except the snapshot objects, which run on the snapshot thread.
 */
public final class RocksDBKeyedStateBackend<K> implements KeyedStateBackend<K> {

  private static final Logger LOG = LoggerFactory.getLogger(RocksDBKeyedStateBackend.class);

  /** Bytes of the key-group prefix of every key. */
  static final int KEY_GROUP_BYTES = 2;

  /** Values of {@link RocksDBOptions#FULL_CHECKPOINT_FORMAT}. */
  static final String FORMAT_NATIVE = "native";

  static final String FORMAT_CANONICAL = "canonical";

  final String operatorName;

  /** The operator's stable id: names its local copies of snapshots. */
  final String operatorId;

  /** Where native snapshots keep their local copies (task-local recovery), or null. */
  final TaskLocalStateStore localState;

  final TypeSerializer<K> keySerializer;
  private final int maxParallelism;
  final KeyGroupRange range;
  final boolean incremental;

  /** Full checkpoints as native SST files (else in the canonical key-group format). */
  final boolean nativeFull;

  final Path instanceDir;
  final Path dbDir;
  final int transferThreads;
  private final int timerCacheSize;

  /** Where value, reducing and aggregating state live: the write cache, or RocksDB directly. */
  final SingleValueStore singleValues;

  private final RocksDBResources.Slot slot;
  final DBOptions dbOptions;
  final RocksDBResources.ColumnOptions columnOptions;
  final WriteOptions writeOptions;

  /** {@link RocksDBOptions#WRITE_BATCH_SIZE}: the bytes of one write batch of many writes. */
  final long writeBatchBytes;

  final ReadOptions readOptions;
  private final FlushOptions flushOptions;
  final SnapshotGuard guard = new SnapshotGuard();

  RocksDB db;
  final List<ColumnFamilyHandle> handlesToClose = new ArrayList<>();

  /** Every column by name: registered, or restored and not registered (yet). */
  final Map<String, RocksDBColumn> columns = new LinkedHashMap<>();

  private final Map<String, Object> states = new HashMap<>();
  private final Map<String, RocksDBTimerQueue<K>> timerQueues = new HashMap<>();

  /** This database in the shared-state registry until a checkpoint completed: see uploadedBase. */
  String backendId;

  /** The SST files of the last completed checkpoint: what need not be uploaded; null: none. */
  RocksDBNativeSnapshot.Uploaded uploadedBase;

  /** SST files each pending checkpoint refers to; moved to the base when it completes. */
  final TreeMap<Long, RocksDBNativeSnapshot.Uploaded> pendingUploads = new TreeMap<>();

  private K currentKey;
  private int currentKeyGroup = -1;
  private byte[] currentKeyBytes;
  private int currentKeyHash;
  private boolean currentKeyHashed;
  private byte[] currentMapPrefix;
  final DataOutputSerializer keyOut = new DataOutputSerializer(64);
  final DataOutputSerializer valueOut = new DataOutputSerializer(256);
  private boolean closed;

  RocksDBKeyedStateBackend(
      String operatorName,
      TypeSerializer<K> keySerializer,
      int maxParallelism,
      KeyGroupRange range,
      Configuration conf,
      Path instanceDir,
      RocksDBResources.Slot slot,
      String operatorId,
      TaskLocalStateStore localState) {
    this.operatorName = operatorName;
    this.operatorId = operatorId;
    this.localState = localState;
    this.keySerializer = keySerializer;
    this.maxParallelism = maxParallelism;
    this.range = range;
    this.incremental = conf.get(CheckpointingOptions.INCREMENTAL_CHECKPOINTS);
    this.nativeFull = nativeFullCheckpoints(conf);
    this.instanceDir = instanceDir;
    this.dbDir = instanceDir.resolve("db");
    this.transferThreads = conf.get(RocksDBOptions.TRANSFER_THREADS);
    if (transferThreads <= 0) {
      throw new IllegalArgumentException(
          RocksDBOptions.TRANSFER_THREADS.key() + " must be positive, not " + transferThreads);
    }
    this.timerCacheSize = conf.get(RocksDBOptions.TIMER_CACHE_SIZE);
    int writeCacheSize = conf.get(RocksDBOptions.WRITE_CACHE_SIZE);
    if (writeCacheSize < 0) {
      throw new IllegalArgumentException(
          RocksDBOptions.WRITE_CACHE_SIZE.key()
              + " must be 0 (no write cache) or a positive number of entries, not "
              + writeCacheSize);
    }
    this.writeBatchBytes = conf.get(RocksDBOptions.WRITE_BATCH_SIZE).bytes();
    if (writeBatchBytes <= 0) {
      throw new IllegalArgumentException(
          RocksDBOptions.WRITE_BATCH_SIZE.key()
              + " must be positive, not "
              + writeBatchBytes
              + " bytes");
    }
    this.slot = slot;
    this.dbOptions = RocksDBResources.dbOptions(conf, slot);
    this.columnOptions = RocksDBResources.columnOptions(conf, slot);
    this.writeOptions = new WriteOptions().setDisableWAL(true);
    this.readOptions = new ReadOptions();
    this.flushOptions = new FlushOptions().setWaitForFlush(true);
    this.singleValues = SingleValueStore.create(this, writeCacheSize);
  }

  /** Reads {@link RocksDBOptions#FULL_CHECKPOINT_FORMAT}; an unknown value names the key. */
  static boolean nativeFullCheckpoints(Configuration conf) {
    String format = conf.get(RocksDBOptions.FULL_CHECKPOINT_FORMAT).trim();
    if (format.equalsIgnoreCase(FORMAT_NATIVE)) {
      return true;
    }
    if (format.equalsIgnoreCase(FORMAT_CANONICAL)) {
      return false;
    }
    throw new IllegalArgumentException(
        "Unknown full checkpoint format '"
            + format
            + "' in "
            + RocksDBOptions.FULL_CHECKPOINT_FORMAT.key()
            + "; use '"
            + FORMAT_NATIVE
            + "' (SST files, RocksDB only) or '"
            + FORMAT_CANONICAL
            + "' (key-group format, restorable by any backend).");
  }

  /** The column of a state or timer queue, created on first use (or adopted from a restore). */
  @SuppressWarnings("unchecked")
  RocksDBColumn column(
      String name,
      StateDescriptor.Kind kind,
      boolean timers,
      TypeSerializer<?> valueSerializer,
      TypeSerializer<?> mapKeySerializer) {
    RocksDBColumn existing = columns.get(name);
    if (existing != null) {
      if (existing.kind != kind || existing.timers != timers) {
        throw new IllegalStateException(
            "Operator '"
                + operatorName
                + "' registers state '"
                + name
                + "' as "
                + kind
                + " but it "
                + (states.containsKey(name) ? "already exists" : "was restored from the checkpoint")
                + " as "
                + existing.kind
                + ". Give each state its own name.");
      }
      if (!timers && !states.containsKey(name) && existing.valueSerializer != null) {
        RocksDBMigration.migrateIfNeeded(this, existing, valueSerializer, mapKeySerializer);
      }
      // Future snapshots write with the serializers the user registers now.
      existing.valueSerializer = (TypeSerializer<Object>) valueSerializer;
      existing.mapKeySerializer = (TypeSerializer<Object>) mapKeySerializer;
      return existing;
    }
    ColumnFamilyHandle handle = RocksDBOpen.createColumnFamily(this, name);
    RocksDBColumn created =
        new RocksDBColumn(
            name,
            kind,
            timers,
            handle,
            (TypeSerializer<Object>) valueSerializer,
            (TypeSerializer<Object>) mapKeySerializer);
    columns.put(name, created);
    return created;
  }

  @Override
  public String getOperatorName() {
    return operatorName;
  }

  @Override
  public KeyGroupRange getKeyGroupRange() {
    return range;
  }

  @Override
  public int getMaxParallelism() {
    return maxParallelism;
  }

  @Override
  public TypeSerializer<K> getKeySerializer() {
    return keySerializer;
  }

  @Override
  public void setCurrentKey(K key) {
    int keyGroup =
        KeyGroupRangeAssignment.checkedKeyGroup(key, maxParallelism, range, operatorName);
    currentKey = key;
    currentKeyGroup = keyGroup;
    keyOut.clear();
    keyOut.writeShort(keyGroup);
    try {
      keySerializer.serialize(key, keyOut);
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot serialize key '" + key + "' of " + operatorName, e);
    }
    currentKeyBytes = keyOut.getCopyOfBuffer();
    currentKeyHashed = false;
    currentMapPrefix = null;
  }

  @Override
  public K getCurrentKey() {
    return currentKey;
  }

  int currentKeyGroup() {
    return currentKeyGroup;
  }

  /** Key group and serialized key of the current key: the RocksDB key of single-value states. */
  byte[] currentKeyBytes() {
    if (currentKeyBytes == null) {
      throw new IllegalStateException(
          "Keyed state of '"
              + operatorName
              + "' was used outside of processing an element or timer: there is no current key");
    }
    return currentKeyBytes;
  }

  /** The hash of {@link #currentKeyBytes()}, computed once per key. */
  int currentKeyHash() {
    if (!currentKeyHashed) {
      currentKeyHash = Arrays.hashCode(currentKeyBytes());
      currentKeyHashed = true;
    }
    return currentKeyHash;
  }

  /** Key group, key length and key: the prefix of every entry of the current key's map. */
  byte[] currentMapPrefix() {
    if (currentMapPrefix == null) {
      byte[] k = currentKeyBytes();
      DataOutputSerializer out = new DataOutputSerializer(k.length + 5);
      out.write(k, 0, KEY_GROUP_BYTES);
      out.writeVarInt(k.length - KEY_GROUP_BYTES);
      out.write(k, KEY_GROUP_BYTES, k.length - KEY_GROUP_BYTES);
      currentMapPrefix = out.getCopyOfBuffer();
    }
    return currentMapPrefix;
  }

  /** The first key of key group {@code keyGroup} (2 bytes, big-endian). */
  static byte[] keyGroupPrefix(int keyGroup) {
    return new byte[] {(byte) (keyGroup >>> 8), (byte) keyGroup};
  }

  static int keyGroupOf(byte[] key) {
    return ((key[0] & 0xff) << 8) | (key[1] & 0xff);
  }

  static boolean startsWith(byte[] key, byte[] prefix) {
    return key.length >= prefix.length
        && Arrays.equals(key, 0, prefix.length, prefix, 0, prefix.length);
  }

  @SuppressWarnings("unchecked")
  private <S> S getOrCreate(StateDescriptor<?> descriptor, Function<RocksDBColumn, S> factory) {
    Object existing = states.get(descriptor.getName());
    if (existing != null && columns.get(descriptor.getName()).kind == descriptor.getKind()) {
      return (S) existing;
    }
    TypeSerializer<?> mapKeys =
        descriptor instanceof MapStateDescriptor<?, ?> m ? m.createKeySerializer() : null;
    RocksDBColumn column =
        column(
            descriptor.getName(),
            descriptor.getKind(),
            false,
            descriptor.createSerializer(),
            mapKeys);
    S created = factory.apply(column);
    states.put(descriptor.getName(), created);
    return created;
  }

  @Override
  public <T> ValueState<T> getState(ValueStateDescriptor<T> descriptor) {
    return getOrCreate(descriptor, c -> new RocksDBStates.Value<>(this, c, descriptor));
  }

  @Override
  public <T> ListState<T> getListState(ListStateDescriptor<T> descriptor) {
    return getOrCreate(descriptor, c -> new RocksDBStates.List<>(this, c));
  }

  @Override
  public <UK, UV> MapState<UK, UV> getMapState(MapStateDescriptor<UK, UV> descriptor) {
    return getOrCreate(descriptor, c -> new RocksDBStates.Map<>(this, c));
  }

  @Override
  public <T> ReducingState<T> getReducingState(ReducingStateDescriptor<T> descriptor) {
    return getOrCreate(descriptor, c -> new RocksDBStates.Reducing<>(this, c, descriptor));
  }

  @Override
  public <IN, ACC, OUT> AggregatingState<IN, OUT> getAggregatingState(
      AggregatingStateDescriptor<IN, ACC, OUT> descriptor) {
    return getOrCreate(descriptor, c -> new RocksDBStates.Aggregating<>(this, c, descriptor));
  }

  @Override
  public TimerQueue<K> getTimerQueue(String name) {
    return timerQueues.computeIfAbsent(
        name,
        n ->
            new RocksDBTimerQueue<>(
                this, column(n, StateDescriptor.Kind.MAP, true, null, null), timerCacheSize));
  }

  /** Whether {@code name} is one of the timer queues of the timer service. */
  static boolean isTimerState(String name) {
    return InternalTimerService.PROCESSING_TIMERS.equals(name)
        || InternalTimerService.EVENT_TIMERS.equals(name);
  }

  /**
   * A savepoint is written in the canonical key-group format, never incremental or native; a full
   * checkpoint of an incremental backend reuses no file of an earlier checkpoint.
   */
  @Override
  public KeyedStateSnapshot snapshot(
      long checkpointId, io.weir.runtime.checkpoint.CheckpointOptions options) throws Exception {
    if (!options.isSavepoint()) {
      return snapshot(checkpointId, options.mayReuseEarlierFiles());
    }
    checkOpen();
    if (columns.isEmpty()) {
      return null;
    }
    singleValues.flush();
    return new RocksDBFullSnapshot(this);
  }

  @Override
  public KeyedStateSnapshot snapshot(long checkpointId) throws Exception {
    return snapshot(checkpointId, true);
  }

  private KeyedStateSnapshot snapshot(long checkpointId, boolean reuseEarlierFiles)
      throws Exception {
    checkOpen();
    if (columns.isEmpty()) {
      return null;
    }
    // Before the RocksDB checkpoint or snapshot: it must hold every update made before the barrier.
    singleValues.flush();
    if (incremental || nativeFull) {
      return RocksDBNativeSnapshot.take(this, checkpointId, incremental, reuseEarlierFiles);
    }
    return new RocksDBFullSnapshot(this);
  }

  /** Flushes every memtable to SST files (before a native checkpoint). */
  void flush() throws RocksDBException {
    List<ColumnFamilyHandle> handles = new ArrayList<>();
    for (RocksDBColumn c : columns.values()) {
      handles.add(c.handle);
    }
    db.flush(flushOptions, handles);
  }

  @Override
  public void notifyCheckpointComplete(long checkpointId) {
    synchronized (pendingUploads) {
      RocksDBNativeSnapshot.Uploaded files = pendingUploads.get(checkpointId);
      if (files != null) {
        uploadedBase = files;
      }
      pendingUploads.headMap(checkpointId, true).clear();
    }
  }

  @Override
  public void notifyCheckpointAborted(long checkpointId) {
    synchronized (pendingUploads) {
      pendingUploads.remove(checkpointId);
    }
  }

  void checkOpen() {
    if (closed) {
      throw new IllegalStateException("The RocksDB backend of '" + operatorName + "' is closed");
    }
  }

  @Override
  public void close() {
    if (closed) {
      return;
    }
    closed = true;
    // Unflushed updates die with the task: a restore starts from the last checkpoint.
    singleValues.discard();
    // Snapshots still being written stop at their next key group; wait until they let go.
    guard.closeAndAwait();
    for (ColumnFamilyHandle h : handlesToClose) {
      h.close();
    }
    if (db != null) {
      db.close();
    }
    writeOptions.close();
    readOptions.close();
    flushOptions.close();
    columnOptions.close();
    dbOptions.close();
    RocksDBResources.release(slot);
    deleteQuietly(instanceDir);
  }

  /** Deletes a directory and everything in it, logging what it cannot delete. */
  static void deleteQuietly(Path dir) {
    if (!Files.exists(dir)) {
      return;
    }
    try (Stream<Path> paths = Files.walk(dir)) {
      paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    } catch (IOException | UncheckedIOException e) {
      LOG.warn("Could not delete the RocksDB directory {}", dir, e);
    }
  }

  /**
   * Lets a snapshot thread use the database while the task may close it: a snapshot holds a lease
   * while it reads; closing waits for leases to end and makes new ones fail.
   */
  static final class SnapshotGuard {
    private int leases;
    private boolean closing;

    synchronized boolean acquire() {
      if (closing) {
        return false;
      }
      leases++;
      return true;
    }

    synchronized void release() {
      if (--leases == 0) {
        notifyAll();
      }
    }

    synchronized boolean isClosing() {
      return closing;
    }

    synchronized void closeAndAwait() {
      closing = true;
      boolean interrupted = false;
      while (leases > 0) {
        try {
          wait();
        } catch (InterruptedException e) {
          interrupted = true;
        }
      }
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
    }
  }
}

package io.weir.state.rocksdb;

import io.weir.runtime.state.HeapSnapshotStrategy;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;
import org.rocksdb.ColumnFamilyDescriptor;
import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.DBOptions;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;

/**
 * Opens the database of a {@link RocksDBKeyedStateBackend} and creates its column families: on a
 * fresh start or a restore ({@link RocksDBRestore}), and when a state is first registered. Every
 * handle it makes is one the backend closes.
 *
 * <p>Task thread only.
 */
final class RocksDBOpen {

  /** RocksDB's default {@code max_file_opening_threads}. */
  private static final int MAX_FILE_OPENING_THREADS = 16;

  private RocksDBOpen() {}

  /** Opens the database in the backend's {@code dbDir} with every column family found there. */
  static List<ColumnFamilyHandle> open(RocksDBKeyedStateBackend<?> backend)
      throws RocksDBException {
    Path dbDir = backend.dbDir;
    List<byte[]> names = new ArrayList<>();
    if (Files.exists(dbDir.resolve("CURRENT"))) {
      try (org.rocksdb.Options probe = new org.rocksdb.Options()) {
        names.addAll(RocksDB.listColumnFamilies(probe, dbDir.toString()));
      }
    }
    if (names.isEmpty()) {
      names.add(RocksDB.DEFAULT_COLUMN_FAMILY);
    }
    List<ColumnFamilyDescriptor> descriptors = new ArrayList<>();
    for (byte[] name : names) {
      descriptors.add(new ColumnFamilyDescriptor(name, backend.columnOptions.options()));
    }
    List<ColumnFamilyHandle> handles = new ArrayList<>();
    fileOpeningThreads(backend.dbOptions, dbDir);
    backend.db = RocksDB.open(backend.dbOptions, dbDir.toString(), descriptors, handles);
    backend.handlesToClose.addAll(handles);
    return handles;
  }

  /**
   * Sets {@code max_file_opening_threads} for opening the database in {@code dir}: one thread per
   * SST file there, up to RocksDB's default of 16. RocksDB starts and joins that many threads on
   * every open, even of an empty database; with the default, an empty database took 5 ms to open
   * instead of 3, and the tasks of a job open one per keyed operator on every start and restore.
   */
  static void fileOpeningThreads(DBOptions options, Path dir) {
    long files;
    try (Stream<Path> list = Files.list(dir)) {
      files = list.filter(p -> p.getFileName().toString().endsWith(".sst")).count();
    } catch (IOException e) {
      files = MAX_FILE_OPENING_THREADS; // RocksDB's open will say what is wrong with the directory
    }
    options.setMaxFileOpeningThreads((int) Math.max(1, Math.min(MAX_FILE_OPENING_THREADS, files)));
  }

  /**
   * Creates the columns of the states a restore brings that the backend has none of yet, in one
   * call to RocksDB: it rewrites its OPTIONS file, and reads it back to verify it, once per call
   * and for every column family, so one call per state made a restore of n states cost n² column
   * family options.
   */
  static void createMissingColumns(
      RocksDBKeyedStateBackend<?> backend,
      List<HeapSnapshotStrategy.StateMeta> states,
      Set<String> timers) {
    List<HeapSnapshotStrategy.StateMeta> missing =
        states.stream().filter(s -> !backend.columns.containsKey(s.name())).toList();
    if (missing.isEmpty()) {
      return;
    }
    List<ColumnFamilyDescriptor> descriptors = new ArrayList<>();
    for (HeapSnapshotStrategy.StateMeta s : missing) {
      descriptors.add(
          new ColumnFamilyDescriptor(
              s.name().getBytes(StandardCharsets.UTF_8), backend.columnOptions.options()));
    }
    List<ColumnFamilyHandle> handles;
    try {
      handles = backend.db.createColumnFamilies(descriptors);
    } catch (RocksDBException e) {
      throw new IllegalStateException(
          "RocksDB of '"
              + backend.operatorName
              + "' could not create the column families of the restored states "
              + missing.stream().map(HeapSnapshotStrategy.StateMeta::name).toList()
              + ": "
              + e.getMessage(),
          e);
    }
    backend.handlesToClose.addAll(handles);
    for (int i = 0; i < missing.size(); i++) {
      HeapSnapshotStrategy.StateMeta s = missing.get(i);
      boolean timer = timers.contains(s.name());
      backend.columns.put(
          s.name(),
          new RocksDBColumn(
              s.name(),
              s.kind(),
              timer,
              handles.get(i),
              timer ? null : s.valueSerializer(),
              timer ? null : s.mapKeySerializer()));
    }
  }

  /** Creates the column family of state {@code name}, registered for the first time. */
  static ColumnFamilyHandle createColumnFamily(RocksDBKeyedStateBackend<?> backend, String name) {
    try {
      ColumnFamilyHandle handle =
          backend.db.createColumnFamily(
              new ColumnFamilyDescriptor(
                  name.getBytes(StandardCharsets.UTF_8), backend.columnOptions.options()));
      backend.handlesToClose.add(handle);
      return handle;
    } catch (RocksDBException e) {
      throw new IllegalStateException(
          "RocksDB of '"
              + backend.operatorName
              + "' could not create the column family of state '"
              + name
              + "': "
              + e.getMessage(),
          e);
    }
  }
}

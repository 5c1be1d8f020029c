package io.weir.state.rocksdb;

import io.weir.api.typeutils.DataInputDeserializer;
import io.weir.api.typeutils.DataOutputSerializer;
import io.weir.api.typeutils.TypeSerializer;
import io.weir.runtime.checkpoint.CorruptCheckpointException;
import io.weir.runtime.checkpoint.IncrementalKeyedStateHandle;
import io.weir.runtime.checkpoint.RestoredOperatorState;
import io.weir.runtime.state.HeapSnapshotStrategy;
import io.weir.runtime.state.HeapSnapshotStrategy.SerializedKeyGroups;
import io.weir.runtime.state.KeyGroupRange;
import io.weir.runtime.state.StateMigration;
import io.weir.runtime.storage.DamagedStateException;
import io.weir.runtime.storage.StreamStateHandle;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.stream.Collectors;
import org.rocksdb.ColumnFamilyDescriptor;
import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.RocksIterator;

/**
 * Restores the RocksDB backend from a checkpoint.
 *
 * <p>Incremental state: the old subtask whose key groups overlap this one's most is downloaded
 * (files in parallel, each verified against its checksum) straight into the working directory and
 * opened; key groups this subtask does not own are dropped with range deletes. Any other
 * overlapping old subtask (after a rescale) is downloaded to a temporary directory, opened
 * read-only, and only the owned key-group range is copied over, by seeking to its first key. Full
 * (canonical) state is read key group by key group and written in batches. With task-local recovery
 * the database of the same subtask is taken from its verified local copy instead ({@link
 * RocksDBLocalCopy}), and the checkpoint storage is not read.
 */
final class RocksDBRestore {

  private RocksDBRestore() {}

  static <K> void restore(
      RocksDBKeyedStateBackend<K> backend, RestoredOperatorState restored, ClassLoader loader)
      throws IOException, RocksDBException {
    KeyGroupRange mine = backend.range;
    List<RestoredOperatorState.IncrementalRestore> overlapping = new ArrayList<>();
    if (restored != null) {
      for (RestoredOperatorState.IncrementalRestore r : restored.incremental()) {
        if (r.handle().range().intersection(mine).getNumberOfKeyGroups() > 0) {
          overlapping.add(r);
        }
      }
    }
    overlapping.sort(
        Comparator.comparingInt(
                (RestoredOperatorState.IncrementalRestore r) ->
                    r.handle().range().intersection(mine).getNumberOfKeyGroups())
            .reversed());
    backend.backendId = UUID.randomUUID().toString();
    if (overlapping.isEmpty()) {
      Files.createDirectories(backend.dbDir);
      RocksDBOpen.open(backend);
    } else {
      RestoredOperatorState.IncrementalRestore first = overlapping.get(0);
      byte[] localMeta =
          overlapping.size() == 1
              ? RocksDBLocalCopy.restore(
                  backend, restored.checkpointId(), first.handle(), backend.dbDir)
              : null;
      if (localMeta == null) {
        download(backend, first, backend.dbDir);
      }
      List<ColumnFamilyHandle> handles = RocksDBOpen.open(backend);
      RocksDBMeta.Meta meta =
          localMeta == null
              ? readMeta(backend, first, loader)
              : parseMeta(backend, localMeta, loader);
      adoptColumns(backend, meta, handles);
      KeyGroupRange theirs = first.handle().range();
      if (theirs.equals(mine) && overlapping.size() == 1 && first.claimed()) {
        // The same database continues: its files need not be uploaded again.
        backend.backendId = first.handle().backendId();
        Map<String, StreamStateHandle> files = new HashMap<>();
        first.handle().sharedFiles().forEach(f -> files.put(f.localName(), f.handle()));
        backend.uploadedBase = new RocksDBNativeSnapshot.Uploaded(backend.backendId, files);
      }
      clip(backend, theirs);
      for (int i = 1; i < overlapping.size(); i++) {
        copyOwnedRange(backend, overlapping.get(i), loader);
      }
    }
    if (restored != null) {
      for (SerializedKeyGroups source : restored.keyed()) {
        restoreCanonical(backend, source, loader);
      }
    }
  }

  /** Downloads every file of {@code restore} into {@code dir}, in parallel and verified. */
  private static void download(
      RocksDBKeyedStateBackend<?> backend,
      RestoredOperatorState.IncrementalRestore restore,
      Path dir)
      throws IOException {
    Files.createDirectories(dir);
    IncrementalKeyedStateHandle h = restore.handle();
    List<Callable<Void>> downloads = new ArrayList<>();
    for (IncrementalKeyedStateHandle.SharedFile f : h.sharedFiles()) {
      downloads.add(transfer(restore, f.handle(), dir.resolve(f.localName())));
    }
    for (IncrementalKeyedStateHandle.PrivateFile f : h.privateFiles()) {
      downloads.add(transfer(restore, f.handle(), dir.resolve(f.localName())));
    }
    try {
      FileTransfer.runAll(
          downloads, backend.transferThreads, "download of '" + backend.operatorName + "'");
    } catch (IOException e) {
      throw restoreFailure(
          h.checkpointId(),
          "Checkpoint "
              + h.checkpointId()
              + ": keyed state of '"
              + backend.operatorName
              + "' cannot be restored: "
              + e.getMessage(),
          e);
    }
  }

  /**
   * A {@link CorruptCheckpointException} when {@code cause} says a file is missing or damaged (the
   * job falls back to an older checkpoint); otherwise an ordinary failure (a read timed out, the
   * local disk is full), after which the same checkpoint is restored again.
   */
  private static IOException restoreFailure(long checkpointId, String message, IOException cause) {
    return cause instanceof DamagedStateException
        ? new CorruptCheckpointException(checkpointId, message, cause)
        : new IOException(message, cause);
  }

  private static Callable<Void> transfer(
      RestoredOperatorState.IncrementalRestore restore, StreamStateHandle handle, Path target) {
    return () -> {
      restore.storage().readStateToFile(handle, target);
      return null;
    };
  }

  private static RocksDBMeta.Meta readMeta(
      RocksDBKeyedStateBackend<?> backend,
      RestoredOperatorState.IncrementalRestore restore,
      ClassLoader loader)
      throws IOException {
    IncrementalKeyedStateHandle h = restore.handle();
    byte[] bytes;
    try {
      bytes = restore.storage().readState(h.metaData());
    } catch (IOException e) {
      throw restoreFailure(
          h.checkpointId(),
          "Checkpoint "
              + h.checkpointId()
              + ": state meta data of '"
              + backend.operatorName
              + "' cannot be read: "
              + e.getMessage(),
          e);
    }
    return parseMeta(backend, bytes, loader);
  }

  private static RocksDBMeta.Meta parseMeta(
      RocksDBKeyedStateBackend<?> backend, byte[] bytes, ClassLoader loader) throws IOException {
    RocksDBMeta.Meta meta = RocksDBMeta.read(bytes, loader, backend.operatorName);
    StateMigration.checkKey(
        backend.operatorName, meta.keySerializer().snapshotConfiguration(), backend.keySerializer);
    return meta;
  }

  /** Makes the restored column families the backend's columns, with their recorded meta. */
  private static void adoptColumns(
      RocksDBKeyedStateBackend<?> backend, RocksDBMeta.Meta meta, List<ColumnFamilyHandle> handles)
      throws RocksDBException {
    Map<String, HeapSnapshotStrategy.StateMeta> byName = new HashMap<>();
    meta.states().forEach(s -> byName.put(s.name(), s));
    for (ColumnFamilyHandle handle : handles) {
      String name = new String(handle.getName(), StandardCharsets.UTF_8);
      HeapSnapshotStrategy.StateMeta s = byName.get(name);
      if (s == null) {
        continue; // the default column family
      }
      boolean timers = meta.timers().contains(name);
      backend.columns.put(
          name,
          new RocksDBColumn(
              name,
              s.kind(),
              timers,
              handle,
              timers ? null : s.valueSerializer(),
              timers ? null : s.mapKeySerializer()));
    }
  }

  /** Drops, with range deletes, the key groups of {@code theirs} that this subtask does not own. */
  private static void clip(RocksDBKeyedStateBackend<?> backend, KeyGroupRange theirs)
      throws RocksDBException {
    KeyGroupRange mine = backend.range;
    for (RocksDBColumn c : backend.columns.values()) {
      if (theirs.startKeyGroup() < mine.startKeyGroup()) {
        backend.db.deleteRange(
            c.handle,
            RocksDBKeyedStateBackend.keyGroupPrefix(theirs.startKeyGroup()),
            RocksDBKeyedStateBackend.keyGroupPrefix(mine.startKeyGroup()));
      }
      if (theirs.endKeyGroup() > mine.endKeyGroup()) {
        backend.db.deleteRange(
            c.handle,
            RocksDBKeyedStateBackend.keyGroupPrefix(mine.endKeyGroup() + 1),
            RocksDBKeyedStateBackend.keyGroupPrefix(theirs.endKeyGroup() + 1));
      }
    }
  }

  private static String columnName(ColumnFamilyHandle handle) throws RocksDBException {
    return new String(handle.getName(), StandardCharsets.UTF_8);
  }

  /** Copies the owned key groups of another old subtask's database into this one. */
  private static void copyOwnedRange(
      RocksDBKeyedStateBackend<?> backend,
      RestoredOperatorState.IncrementalRestore restore,
      ClassLoader loader)
      throws IOException, RocksDBException {
    Path dir = backend.instanceDir.resolve("restore-" + UUID.randomUUID());
    try {
      download(backend, restore, dir);
      RocksDBMeta.Meta meta = readMeta(backend, restore, loader);
      KeyGroupRange overlap = restore.handle().range().intersection(backend.range);
      List<byte[]> names;
      try (org.rocksdb.Options probe = new org.rocksdb.Options()) {
        names = RocksDB.listColumnFamilies(probe, dir.toString());
      }
      List<ColumnFamilyDescriptor> descriptors = new ArrayList<>();
      for (byte[] name : names) {
        descriptors.add(new ColumnFamilyDescriptor(name, backend.columnOptions.options()));
      }
      List<ColumnFamilyHandle> handles = new ArrayList<>();
      RocksDBOpen.fileOpeningThreads(backend.dbOptions, dir);
      try (RocksDB other =
          RocksDB.openReadOnly(backend.dbOptions, dir.toString(), descriptors, handles)) {
        Map<String, HeapSnapshotStrategy.StateMeta> byName = new HashMap<>();
        meta.states().forEach(s -> byName.put(s.name(), s));
        List<HeapSnapshotStrategy.StateMeta> theirStates = new ArrayList<>();
        for (ColumnFamilyHandle handle : handles) {
          HeapSnapshotStrategy.StateMeta s = byName.get(columnName(handle));
          if (s != null) {
            theirStates.add(s);
          }
        }
        RocksDBOpen.createMissingColumns(backend, theirStates, meta.timers());
        byte[] start = RocksDBKeyedStateBackend.keyGroupPrefix(overlap.startKeyGroup());
        byte[] end = RocksDBKeyedStateBackend.keyGroupPrefix(overlap.endKeyGroup() + 1);
        for (ColumnFamilyHandle handle : handles) {
          String name = columnName(handle);
          if (!byName.containsKey(name)) {
            continue;
          }
          RocksDBColumn target = backend.columns.get(name);
          try (RocksIterator it = other.newIterator(handle);
              RocksDBBatchWriter batch = new RocksDBBatchWriter(backend)) {
            for (it.seek(start); it.isValid(); it.next()) {
              byte[] key = it.key();
              if (java.util.Arrays.compareUnsigned(key, 0, 2, end, 0, 2) >= 0) {
                break;
              }
              batch.put(target, key, it.value());
            }
          }
        }
      } finally {
        handles.forEach(ColumnFamilyHandle::close);
      }
    } finally {
      RocksDBKeyedStateBackend.deleteQuietly(dir);
    }
  }

  /**
   * Steps over one serialized value by copying it (records and POJOs copy field by field without
   * constructing an object): the bytes go into the database as they are, and a value written by an
   * older version of its class may not fit the class as it is now; whether it migrates is decided
   * when the state is registered.
   */
  private static void skip(
      TypeSerializer<?> serializer, DataInputDeserializer in, DataOutputSerializer scratch)
      throws IOException {
    scratch.clear();
    serializer.copy(in, scratch);
  }

  /** Writes the owned key groups of a canonical stream into the database. */
  private static void restoreCanonical(
      RocksDBKeyedStateBackend<?> backend, SerializedKeyGroups source, ClassLoader loader)
      throws IOException, RocksDBException {
    KeyGroupRange overlap = source.range().intersection(backend.range);
    if (overlap.getNumberOfKeyGroups() == 0) {
      return;
    }
    byte[] data = source.data();
    DataInputDeserializer in = new DataInputDeserializer(data);
    HeapSnapshotStrategy.Header header =
        HeapSnapshotStrategy.readHeader(in, loader, backend.operatorName);
    TypeSerializer<Object> keys = header.keySerializer();
    StateMigration.checkKey(
        backend.operatorName, keys.snapshotConfiguration(), backend.keySerializer);
    RocksDBOpen.createMissingColumns(
        backend,
        header.states(),
        header.states().stream()
            .map(HeapSnapshotStrategy.StateMeta::name)
            .filter(RocksDBKeyedStateBackend::isTimerState)
            .collect(Collectors.toSet()));
    List<RocksDBColumn> targets = new ArrayList<>();
    for (HeapSnapshotStrategy.StateMeta s : header.states()) {
      targets.add(backend.columns.get(s.name()));
    }
    DataOutputSerializer key = new DataOutputSerializer(64);
    DataOutputSerializer value = new DataOutputSerializer(256);
    DataOutputSerializer scratch = new DataOutputSerializer(256);
    try (RocksDBBatchWriter batch = new RocksDBBatchWriter(backend)) {
      for (int kg = overlap.startKeyGroup(); kg <= overlap.endKeyGroup(); kg++) {
        int offset = (int) source.offsets()[kg - source.range().startKeyGroup()];
        in.setBuffer(data, offset, data.length - offset);
        for (int s = 0; s < targets.size(); s++) {
          HeapSnapshotStrategy.StateMeta meta = header.states().get(s);
          RocksDBColumn target = targets.get(s);
          int entries = in.readInt();
          for (int e = 0; e < entries; e++) {
            int keyStart = in.getPosition();
            keys.deserialize(in);
            int keyEnd = in.getPosition();
            if (target.timers) {
              int size = in.readInt();
              for (int i = 0; i < size; i++) {
                long timestamp = (Long) meta.mapKeySerializer().deserialize(in);
                meta.valueSerializer().deserialize(in);
                key.clear();
                key.writeShort(kg);
                key.writeLong(timestamp ^ Long.MIN_VALUE);
                key.write(data, keyStart, keyEnd - keyStart);
                batch.put(target, key.getCopyOfBuffer(), new byte[0]);
              }
              continue;
            }
            switch (meta.kind()) {
              case MAP -> {
                int size = in.readInt();
                for (int i = 0; i < size; i++) {
                  int mapKeyStart = in.getPosition();
                  skip(meta.mapKeySerializer(), in, scratch);
                  int valueStart = in.getPosition();
                  skip(meta.valueSerializer(), in, scratch);
                  int valueEnd = in.getPosition();
                  key.clear();
                  key.writeShort(kg);
                  key.writeVarInt(keyEnd - keyStart);
                  key.write(data, keyStart, keyEnd - keyStart);
                  key.write(data, mapKeyStart, valueStart - mapKeyStart);
                  batch.put(
                      target,
                      key.getCopyOfBuffer(),
                      java.util.Arrays.copyOfRange(data, valueStart, valueEnd));
                }
              }
              case LIST -> {
                int size = in.readInt();
                value.clear();
                for (int i = 0; i < size; i++) {
                  if (i > 0) {
                    value.writeByte(RocksDBStates.LIST_DELIMITER);
                  }
                  int elementStart = in.getPosition();
                  skip(meta.valueSerializer(), in, scratch);
                  int elementEnd = in.getPosition();
                  value.writeInt(elementEnd - elementStart);
                  value.write(data, elementStart, elementEnd - elementStart);
                }
                key.clear();
                key.writeShort(kg);
                key.write(data, keyStart, keyEnd - keyStart);
                batch.put(target, key.getCopyOfBuffer(), value.getCopyOfBuffer());
              }
              default -> {
                int valueStart = in.getPosition();
                skip(meta.valueSerializer(), in, scratch);
                int valueEnd = in.getPosition();
                key.clear();
                key.writeShort(kg);
                key.write(data, keyStart, keyEnd - keyStart);
                batch.put(
                    target,
                    key.getCopyOfBuffer(),
                    java.util.Arrays.copyOfRange(data, valueStart, valueEnd));
              }
            }
          }
        }
      }
    }
  }
}

package io.weir.state.rocksdb;

import io.weir.api.state.StateDescriptor;
import io.weir.api.typeutils.DataInputDeserializer;
import io.weir.api.typeutils.DataOutputSerializer;
import io.weir.api.typeutils.TypeSerializer;
import io.weir.api.typeutils.Types;
import io.weir.runtime.checkpoint.KeyGroupsStateHandle;
import io.weir.runtime.checkpoint.KeyedStateHandle;
import io.weir.runtime.checkpoint.StateSchema;
import io.weir.runtime.state.HeapSnapshotStrategy;
import io.weir.runtime.state.KeyGroupRange;
import io.weir.runtime.state.KeyedStateSnapshot;
import io.weir.runtime.storage.CheckpointStateWriter;
import io.weir.runtime.storage.StreamStateHandle;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.rocksdb.ReadOptions;
import org.rocksdb.RocksIterator;
import org.rocksdb.Snapshot;

/**
 * A full snapshot of the RocksDB backend: the synchronous part takes a RocksDB snapshot (no
 * copying); the asynchronous part iterates it key group by key group and writes Weir's canonical
 * key-group format ({@link HeapSnapshotStrategy}) to a local file, then uploads that file. The
 * canonical format is the one the heap backend writes, so either backend restores the other's full
 * checkpoints, at any parallelism. Timers are written as the map states the heap backend keeps them
 * in.
 */
final class RocksDBFullSnapshot implements KeyedStateSnapshot {

  /** A column as of the snapshot: its serializers are duplicated for the snapshot thread. */
  record ColumnView(
      String name,
      StateDescriptor.Kind kind,
      boolean timers,
      org.rocksdb.ColumnFamilyHandle handle,
      TypeSerializer<Object> valueSerializer,
      TypeSerializer<Object> mapKeySerializer) {

    static ColumnView of(RocksDBColumn c) {
      return new ColumnView(
          c.name,
          c.kind,
          c.timers,
          c.handle,
          c.valueSerializer == null ? null : c.valueSerializer.duplicate(),
          c.mapKeySerializer == null ? null : c.mapKeySerializer.duplicate());
    }

    /** How the column appears in the canonical format. */
    @SuppressWarnings("unchecked")
    HeapSnapshotStrategy.StateMeta canonical() {
      if (timers) {
        return new HeapSnapshotStrategy.StateMeta(
            name,
            StateDescriptor.Kind.MAP,
            (TypeSerializer<Object>) (TypeSerializer<?>) Types.BOOLEAN.createSerializer(),
            (TypeSerializer<Object>) (TypeSerializer<?>) Types.LONG.createSerializer());
      }
      return new HeapSnapshotStrategy.StateMeta(name, kind, valueSerializer, mapKeySerializer);
    }
  }

  private final RocksDBKeyedStateBackend<?> backend;
  private final Snapshot snapshot;
  private final List<ColumnView> columns = new ArrayList<>();
  private final TypeSerializer<?> keySerializer;
  private final KeyGroupRange range;
  private boolean released;

  RocksDBFullSnapshot(RocksDBKeyedStateBackend<?> backend) {
    this.backend = backend;
    this.snapshot = backend.db.getSnapshot();
    this.keySerializer = backend.keySerializer.duplicate();
    this.range = backend.range;
    backend.columns.values().forEach(c -> columns.add(ColumnView.of(c)));
  }

  @Override
  public StateSchema schema() {
    return schemaOf(keySerializer, columns);
  }

  /** The metadata's description of a database's states, as the canonical header has them. */
  static StateSchema schemaOf(TypeSerializer<?> keySerializer, List<ColumnView> columns) {
    List<StateSchema.Entry> states = new ArrayList<>(columns.size());
    for (ColumnView c : columns) {
      HeapSnapshotStrategy.StateMeta meta = c.canonical();
      states.add(
          HeapSnapshotStrategy.schemaEntry(
              meta.name(), meta.kind(), meta.valueSerializer(), meta.mapKeySerializer()));
    }
    return new StateSchema(StateSchema.snapshotBytes(keySerializer), states);
  }

  @Override
  public KeyedStateHandle persist(
      long checkpointId, CheckpointStateWriter storage, String description) throws IOException {
    if (!backend.guard.acquire()) {
      release();
      throw new IOException("The RocksDB backend of " + description + " closed before its upload");
    }
    try {
      long[][] offsets = new long[1][];
      StreamStateHandle data =
          storage.writeState(
              checkpointId, "keyed state of " + description, out -> offsets[0] = write(out));
      return new KeyGroupsStateHandle(range, offsets[0], data);
    } finally {
      releaseSnapshot();
      backend.guard.release();
    }
  }

  /** Writes the canonical stream; returns where each key group starts in it. */
  private long[] write(OutputStream out) throws IOException {
    long[] offsets = new long[range.getNumberOfKeyGroups()];
    List<HeapSnapshotStrategy.StateMeta> metas = new ArrayList<>();
    columns.forEach(c -> metas.add(c.canonical()));
    try (ReadOptions read = new ReadOptions().setSnapshot(snapshot)) {
      DataOutputSerializer buffer = new DataOutputSerializer(64 * 1024);
      HeapSnapshotStrategy.writeHeader(buffer, keySerializer, metas);
      long written = 0;
      List<RocksIterator> iterators = new ArrayList<>();
      try {
        for (ColumnView c : columns) {
          iterators.add(backend.db.newIterator(c.handle(), read));
        }
        DataOutputSerializer entries = new DataOutputSerializer(64 * 1024);
        for (int kg = range.startKeyGroup(); kg <= range.endKeyGroup(); kg++) {
          if (backend.guard.isClosing()) {
            throw new IOException("The backend of '" + backend.operatorName + "' was closed");
          }
          offsets[kg - range.startKeyGroup()] = written + buffer.length();
          byte[] prefix = RocksDBKeyedStateBackend.keyGroupPrefix(kg);
          for (int s = 0; s < columns.size(); s++) {
            entries.clear();
            int count = writeKeyGroup(columns.get(s), iterators.get(s), prefix, entries);
            buffer.writeInt(count);
            buffer.write(entries.getSharedBuffer(), 0, entries.length());
          }
          out.write(buffer.getSharedBuffer(), 0, buffer.length());
          written += buffer.length();
          buffer.clear();
        }
        out.write(buffer.getSharedBuffer(), 0, buffer.length());
      } finally {
        iterators.forEach(RocksIterator::close);
      }
    }
    return offsets;
  }

  /** Writes one key group of one column in the canonical layout; returns its entry count. */
  private static int writeKeyGroup(
      ColumnView column, RocksIterator it, byte[] prefix, DataOutputSerializer out)
      throws IOException {
    int kgBytes = RocksDBKeyedStateBackend.KEY_GROUP_BYTES;
    it.seek(prefix);
    if (column.timers()) {
      // Grouped by key, as the heap backend keeps them: key -> {timestamp -> true}.
      Map<ByteBuffer, List<Long>> byKey = new LinkedHashMap<>();
      for (; it.isValid() && RocksDBKeyedStateBackend.startsWith(it.key(), prefix); it.next()) {
        byte[] key = it.key();
        long flipped = ByteBuffer.wrap(key, kgBytes, 8).getLong();
        ByteBuffer k = ByteBuffer.wrap(key, kgBytes + 8, key.length - kgBytes - 8).slice();
        byKey.computeIfAbsent(k, x -> new ArrayList<>()).add(flipped ^ Long.MIN_VALUE);
      }
      for (Map.Entry<ByteBuffer, List<Long>> e : byKey.entrySet()) {
        ByteBuffer k = e.getKey();
        out.write(k.array(), k.arrayOffset(), k.remaining());
        out.writeInt(e.getValue().size());
        for (long timestamp : e.getValue()) {
          out.writeLong(timestamp);
          out.writeBoolean(true);
        }
      }
      return byKey.size();
    }
    int count = 0;
    switch (column.kind()) {
      case MAP -> {
        // Entries of one key are adjacent: group them under that key.
        DataInputDeserializer in = new DataInputDeserializer();
        byte[] currentPrefix = null;
        int sizeAt = -1;
        int size = 0;
        for (; it.isValid() && RocksDBKeyedStateBackend.startsWith(it.key(), prefix); it.next()) {
          byte[] key = it.key();
          in.setBuffer(key, kgBytes, key.length - kgBytes);
          int keyLength = in.readVarInt();
          int keyStart = in.getPosition();
          int userKeyStart = keyStart + keyLength;
          if (currentPrefix == null
              || !java.util.Arrays.equals(
                  currentPrefix, 0, currentPrefix.length, key, 0, userKeyStart)) {
            if (sizeAt >= 0) {
              patchInt(out, sizeAt, size);
            }
            currentPrefix = java.util.Arrays.copyOf(key, userKeyStart);
            out.write(key, keyStart, keyLength);
            sizeAt = out.length();
            out.writeInt(0);
            size = 0;
            count++;
          }
          out.write(key, userKeyStart, key.length - userKeyStart);
          out.write(it.value());
          size++;
        }
        if (sizeAt >= 0) {
          patchInt(out, sizeAt, size);
        }
      }
      case LIST -> {
        DataInputDeserializer in = new DataInputDeserializer();
        for (; it.isValid() && RocksDBKeyedStateBackend.startsWith(it.key(), prefix); it.next()) {
          byte[] key = it.key();
          byte[] value = it.value();
          out.write(key, kgBytes, key.length - kgBytes);
          int sizeAt = out.length();
          out.writeInt(0);
          int size = 0;
          in.setBuffer(value, 0, value.length);
          while (in.available() > 0) {
            int length = in.readInt();
            out.write(value, in.getPosition(), length);
            in.skipBytesToRead(length);
            size++;
            if (in.available() > 0) {
              in.readByte();
            }
          }
          patchInt(out, sizeAt, size);
          count++;
        }
      }
      default -> {
        for (; it.isValid() && RocksDBKeyedStateBackend.startsWith(it.key(), prefix); it.next()) {
          byte[] key = it.key();
          out.write(key, kgBytes, key.length - kgBytes);
          out.write(it.value());
          count++;
        }
      }
    }
    return count;
  }

  private static void patchInt(DataOutputSerializer out, int at, int value) {
    int end = out.length();
    out.setPosition(at);
    out.writeInt(value);
    out.setPosition(end);
  }

  private synchronized void releaseSnapshot() {
    if (!released) {
      released = true;
      backend.db.releaseSnapshot(snapshot);
      snapshot.close();
    }
  }

  @Override
  public void release() {
    if (backend.guard.acquire()) {
      try {
        releaseSnapshot();
      } finally {
        backend.guard.release();
      }
    }
  }
}

package io.weir.state.rocksdb;

import io.weir.api.typeutils.DataInputDeserializer;
import io.weir.api.typeutils.DataOutputSerializer;
import io.weir.api.typeutils.TypeSerializer;
import io.weir.runtime.state.StateMigration;
import java.io.IOException;
import java.util.Arrays;
import org.rocksdb.RocksDBException;
import org.rocksdb.RocksIterator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Rewrites a restored column family whose state changed its schema in a compatible way (a record or
 * POJO that gained or lost fields): every value, and for map state every map key if its serializer
 * changed, is read with the serializer that wrote it and written with the one the job registers
 * now.
 *
 * <p>Eager, once, when the state is registered (in {@code open()}, before the first record), and
 * not lazily on each read: so reads and writes keep one serializer and no per-record check, and the
 * next checkpoint holds only the new format. The cost is one pass over the state at restore, paid
 * only by states that need it; states that are compatible as they are are not touched. Task thread.
 */
final class RocksDBMigration {

  private static final Logger LOG = LoggerFactory.getLogger(RocksDBMigration.class);

  private RocksDBMigration() {}

  /**
   * A restored state registered for the first time: checks that the new serializers read what the
   * old ones wrote and, when they need a migration, rewrites the column family ({@link #migrate}).
   *
   * @throws io.weir.runtime.recovery.NonRecoverableException naming the operator, the state and
   *     both types when the change is incompatible
   */
  @SuppressWarnings("unchecked")
  static void migrateIfNeeded(
      RocksDBKeyedStateBackend<?> backend,
      RocksDBColumn restored,
      TypeSerializer<?> valueSerializer,
      TypeSerializer<?> mapKeySerializer) {
    boolean values =
        !StateMigration.resolve(
                backend.operatorName,
                restored.name,
                restored.valueSerializer.snapshotConfiguration(),
                valueSerializer)
            .isCompatibleAsIs();
    boolean mapKeys =
        mapKeySerializer != null
            && restored.mapKeySerializer != null
            && !StateMigration.resolve(
                    backend.operatorName,
                    restored.name,
                    restored.mapKeySerializer.snapshotConfiguration(),
                    mapKeySerializer)
                .isCompatibleAsIs();
    if (!values && !mapKeys) {
      return;
    }
    long started = System.nanoTime();
    try {
      // The migration reads the column directly. No state of it can have cached anything yet (it
      // is registered only now), but the cache's contents must be in RocksDB before any such read.
      backend.singleValues.flush();
      long entries =
          migrate(
              backend,
              restored,
              values ? (TypeSerializer<Object>) valueSerializer : null,
              mapKeys ? (TypeSerializer<Object>) mapKeySerializer : null);
      LOG.info(
          "Migrated state '{}' of '{}' from {} to {}: {} entries in {} ms",
          restored.name,
          backend.operatorName,
          restored.valueSerializer,
          valueSerializer,
          entries,
          (System.nanoTime() - started) / 1_000_000);
    } catch (IOException | RocksDBException e) {
      throw new IllegalStateException(
          "Migrating state '"
              + restored.name
              + "' of '"
              + backend.operatorName
              + "' from "
              + restored.valueSerializer
              + " to "
              + valueSerializer
              + " failed: "
              + e.getMessage(),
          e);
    }
  }

  /**
   * Migrates {@code column}, whose serializers are still the restored ones, to the new ones.
   *
   * @param newValues the value serializer now, or null when the values stay as they are
   * @param newMapKeys the map-key serializer now, or null when the map keys stay as they are
   * @return the number of entries rewritten
   */
  static long migrate(
      RocksDBKeyedStateBackend<?> backend,
      RocksDBColumn column,
      TypeSerializer<Object> newValues,
      TypeSerializer<Object> newMapKeys)
      throws IOException, RocksDBException {
    DataInputDeserializer in = new DataInputDeserializer();
    DataOutputSerializer out = new DataOutputSerializer(256);
    long rewritten = 0;
    try (RocksIterator it = backend.db.newIterator(column.handle, backend.readOptions);
        RocksDBBatchWriter batch = new RocksDBBatchWriter(backend)) {
      for (it.seekToFirst(); it.isValid(); it.next()) {
        byte[] key = it.key();
        byte[] value = it.value();
        byte[] newKey = newMapKeys == null ? key : mapKey(key, column, newMapKeys, in, out);
        byte[] newValue =
            newValues == null
                ? value
                : column.kind == io.weir.api.state.StateDescriptor.Kind.LIST
                    ? list(value, column.valueSerializer, newValues, in, out)
                    : single(value, column.valueSerializer, newValues, in, out);
        if (newKey != key) {
          batch.delete(column, key);
        }
        batch.put(column, newKey, newValue);
        rewritten++;
      }
      it.status();
    }
    return rewritten;
  }

  private static byte[] single(
      byte[] value,
      TypeSerializer<Object> old,
      TypeSerializer<Object> now,
      DataInputDeserializer in,
      DataOutputSerializer out)
      throws IOException {
    in.setBuffer(value, 0, value.length);
    Object v = old.deserialize(in);
    out.clear();
    now.serialize(v, out);
    return out.getCopyOfBuffer();
  }

  /** List elements: {@code int length | bytes}, joined by the merge delimiter. */
  private static byte[] list(
      byte[] value,
      TypeSerializer<Object> old,
      TypeSerializer<Object> now,
      DataInputDeserializer in,
      DataOutputSerializer out)
      throws IOException {
    out.clear();
    in.setBuffer(value, 0, value.length);
    while (in.available() > 0) {
      int length = in.readInt();
      int end = in.getPosition() + length;
      Object element = old.deserialize(in);
      if (out.length() > 0) {
        out.writeByte(RocksDBStates.LIST_DELIMITER);
      }
      int lengthAt = out.length();
      out.writeInt(0);
      now.serialize(element, out);
      int written = out.length();
      out.setPosition(lengthAt);
      out.writeInt(written - lengthAt - 4);
      out.setPosition(written);
      in.setBuffer(value, end, value.length - end);
      if (in.available() > 0) {
        in.readByte();
      }
    }
    return out.getCopyOfBuffer();
  }

  /** A map entry's key: {@code keyGroup:2 | varint(key length) | key | map key}. */
  private static byte[] mapKey(
      byte[] key,
      RocksDBColumn column,
      TypeSerializer<Object> newMapKeys,
      DataInputDeserializer in,
      DataOutputSerializer out)
      throws IOException {
    in.setBuffer(key, RocksDBKeyedStateBackend.KEY_GROUP_BYTES, key.length - 2);
    int keyLength = in.readVarInt();
    int prefixLength = in.getPosition() + keyLength;
    in.setBuffer(key, prefixLength, key.length - prefixLength);
    Object mapKey = column.mapKeySerializer.deserialize(in);
    out.clear();
    out.write(Arrays.copyOf(key, prefixLength));
    newMapKeys.serialize(mapKey, out);
    return out.getCopyOfBuffer();
  }
}

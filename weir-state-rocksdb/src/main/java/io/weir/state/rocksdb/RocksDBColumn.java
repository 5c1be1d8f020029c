package io.weir.state.rocksdb;

import io.weir.api.state.StateDescriptor;
import io.weir.api.typeutils.TypeSerializer;
import org.rocksdb.ColumnFamilyHandle;

/** One column family of a RocksDB keyed state backend: a state or a timer queue. */
final class RocksDBColumn {
  final String name;
  final StateDescriptor.Kind kind;
  final boolean timers;
  final ColumnFamilyHandle handle;

  /** RocksDB's id of the column family, as a write batch names it. */
  final int familyId;

  /** Mixed into the hash of a key in this column by the write cache. */
  final int hashSeed;

  TypeSerializer<Object> valueSerializer;
  TypeSerializer<Object> mapKeySerializer;

  /**
   * For a map state: true until the state is first read whole (its entries, keys or values, an
   * emptiness check or a clear); until then its point accesses go through the backend's {@link
   * SingleValueStore}, after it straight to RocksDB (see {@code RocksDBStates.Map}).
   */
  boolean entriesCached = true;

  RocksDBColumn(
      String name,
      StateDescriptor.Kind kind,
      boolean timers,
      ColumnFamilyHandle handle,
      TypeSerializer<Object> valueSerializer,
      TypeSerializer<Object> mapKeySerializer) {
    this.name = name;
    this.kind = kind;
    this.timers = timers;
    this.handle = handle;
    this.familyId = handle.getID();
    this.hashSeed = name.hashCode();
    this.valueSerializer = valueSerializer;
    this.mapKeySerializer = mapKeySerializer;
  }
}

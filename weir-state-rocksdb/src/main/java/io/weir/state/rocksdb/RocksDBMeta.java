package io.weir.state.rocksdb;

import io.weir.api.typeutils.DataInputDeserializer;
import io.weir.api.typeutils.DataOutputSerializer;
import io.weir.api.typeutils.TypeSerializer;
import io.weir.runtime.state.HeapSnapshotStrategy;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * What an incremental checkpoint says about the database beside its files: the key serializer and,
 * per column family, the state's name, kind and serializers (the canonical header, {@link
 * HeapSnapshotStrategy#writeHeader}), followed by the names of the column families that hold
 * timers.
 */
final class RocksDBMeta {

  private RocksDBMeta() {}

  /** The states of a database as a checkpoint recorded them. */
  record Meta(
      TypeSerializer<Object> keySerializer,
      List<HeapSnapshotStrategy.StateMeta> states,
      Set<String> timers) {}

  static byte[] write(TypeSerializer<?> keySerializer, List<RocksDBFullSnapshot.ColumnView> columns)
      throws IOException {
    DataOutputSerializer out = new DataOutputSerializer(256);
    List<HeapSnapshotStrategy.StateMeta> metas = new ArrayList<>();
    List<String> timers = new ArrayList<>();
    for (RocksDBFullSnapshot.ColumnView c : columns) {
      metas.add(c.canonical());
      if (c.timers()) {
        timers.add(c.name());
      }
    }
    HeapSnapshotStrategy.writeHeader(out, keySerializer, metas);
    out.writeInt(timers.size());
    for (String name : timers) {
      out.writeUTF(name);
    }
    return out.getCopyOfBuffer();
  }

  static Meta read(byte[] bytes, ClassLoader loader, String operatorName) throws IOException {
    DataInputDeserializer in = new DataInputDeserializer(bytes);
    HeapSnapshotStrategy.Header header = HeapSnapshotStrategy.readHeader(in, loader, operatorName);
    int n = in.readInt();
    Set<String> timers = new HashSet<>();
    for (int i = 0; i < n; i++) {
      timers.add(in.readUTF());
    }
    return new Meta(header.keySerializer(), header.states(), timers);
  }
}

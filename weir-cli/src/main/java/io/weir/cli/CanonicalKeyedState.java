package io.weir.cli;

import io.weir.api.state.StateDescriptor;
import io.weir.api.typeutils.DataInputDeserializer;
import io.weir.api.typeutils.TypeSerializer;
import io.weir.runtime.state.HeapSnapshotStrategy;
import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Reads one subtask's keyed state in Weir's canonical key-group format (heap snapshots, canonical
 * RocksDB full checkpoints; see {@link HeapSnapshotStrategy}) entry by entry, with the serializers
 * the stream records. Not thread-safe.
 */
final class CanonicalKeyedState {

  /** One entry of a state: its key and its value (a list or a map for list and map state). */
  record Entry(Object key, Object value) {}

  private final HeapSnapshotStrategy.Header header;
  private final byte[] data;
  private final long[] offsets;
  private final int firstKeyGroup;

  /**
   * @param data the stream
   * @param offsets where each key group of the range starts
   * @param firstKeyGroup the range's first key group
   * @param loader loads the classes of user types the serializers name
   */
  CanonicalKeyedState(
      byte[] data, long[] offsets, int firstKeyGroup, ClassLoader loader, String operatorName)
      throws IOException {
    this.data = data;
    this.offsets = offsets;
    this.firstKeyGroup = firstKeyGroup;
    this.header =
        HeapSnapshotStrategy.readHeader(new DataInputDeserializer(data), loader, operatorName);
  }

  HeapSnapshotStrategy.Header header() {
    return header;
  }

  /** Bytes of key group {@code firstKeyGroup + i}. */
  long keyGroupSize(int i) {
    long end = i + 1 < offsets.length ? offsets[i + 1] : data.length;
    return end - offsets[i];
  }

  /**
   * The entries of state {@code stateName} (null: of every state), by state name, in key-group
   * order. Every state is read, since entries carry no length: the others are skipped.
   */
  Map<String, List<Entry>> entries(String stateName) throws IOException {
    Map<String, List<Entry>> byState = new LinkedHashMap<>();
    for (HeapSnapshotStrategy.StateMeta state : header.states()) {
      if (stateName == null || stateName.equals(state.name())) {
        byState.put(state.name(), new ArrayList<>());
      }
    }
    DataInputDeserializer in = new DataInputDeserializer();
    for (int i = 0; i < offsets.length; i++) {
      int offset = (int) offsets[i];
      in.setBuffer(data, offset, data.length - offset);
      for (HeapSnapshotStrategy.StateMeta state : header.states()) {
        int count = in.readInt();
        if (count < 0) {
          throw new IOException(
              "Key group " + (firstKeyGroup + i) + " of state '" + state.name() + "' is corrupt");
        }
        List<Entry> entries = byState.get(state.name());
        for (int e = 0; e < count; e++) {
          Object key = header.keySerializer().deserialize(in);
          Object value = readValue(in, state);
          if (entries != null) {
            entries.add(new Entry(key, value));
          }
        }
      }
    }
    return byState;
  }

  private static Object readValue(DataInputDeserializer in, HeapSnapshotStrategy.StateMeta state)
      throws IOException {
    TypeSerializer<Object> values = state.valueSerializer();
    if (state.kind() == StateDescriptor.Kind.LIST) {
      int size = in.readInt();
      List<Object> list = new ArrayList<>(size);
      for (int i = 0; i < size; i++) {
        list.add(values.deserialize(in));
      }
      return list;
    }
    if (state.kind() == StateDescriptor.Kind.MAP) {
      int size = in.readInt();
      Map<Object, Object> map = new LinkedHashMap<>();
      for (int i = 0; i < size; i++) {
        map.put(state.mapKeySerializer().deserialize(in), values.deserialize(in));
      }
      return map;
    }
    return values.deserialize(in);
  }

  /**
   * A serializer as a reader knows it: its class's simple name and, where it says more about
   * itself, what (a record's fields and their serializers, the class Kryo falls back to).
   */
  static String describe(TypeSerializer<?> serializer) {
    if (serializer == null) {
      return "-";
    }
    String name = serializer.getClass().getSimpleName();
    try {
      String self = serializer.toString();
      // "long serializer" says no more than LongSerializer
      if (serializer.getClass().getMethod("toString").getDeclaringClass() != Object.class
          && !self.matches("\\w+ serializer")) {
        return name + " (" + self + ")";
      }
    } catch (NoSuchMethodException e) {
      // every class has toString
    }
    return name;
  }

  /** A hint to give the job's classes when {@code e} is about a class that is not there. */
  static String classpathHint(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof ClassNotFoundException || t instanceof NoClassDefFoundError) {
        return "; give the job's jar with --classpath";
      }
    }
    return "";
  }
}

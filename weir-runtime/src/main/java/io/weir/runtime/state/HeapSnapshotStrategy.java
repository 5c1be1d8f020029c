package io.weir.runtime.state;

import io.weir.api.state.StateDescriptor;
import io.weir.api.typeutils.DataInputDeserializer;
import io.weir.api.typeutils.DataOutputSerializer;
import io.weir.api.typeutils.TypeSerializer;
import io.weir.api.typeutils.TypeSerializerSnapshot;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.UnaryOperator;

/**
 * Writes and reads the heap backend's keyed state in Weir's canonical key-group format, the one
 * savepoints will use for every backend:
 *
 * <pre>
 * int version
 * key serializer snapshot
 * int number of states; per state: name, kind, value serializer snapshot [, map key snapshot]
 * per key group of the range, in order (offsets[i] points here):
 *   per state: int entries; per entry: key, value
 *     value / reducing / aggregating: the value
 *     list: int size, elements
 *     map:  int size, (map key, map value) pairs
 * </pre>
 */
public final class HeapSnapshotStrategy {

  private static final int VERSION = 1;

  private HeapSnapshotStrategy() {}

  /** How a table deep-copies a value on copy-on-write; null for immutable values. */
  @SuppressWarnings({"unchecked", "rawtypes"})
  static UnaryOperator<Object> valueCopier(StateDescriptor.Kind kind, TypeSerializer<?> values) {
    return switch (kind) {
      case LIST -> list -> new ArrayList<>((List<Object>) list);
      case MAP -> map -> new HashMap<>((Map<Object, Object>) map);
      default -> {
        TypeSerializer s = values;
        yield s.isImmutableType() ? null : v -> s.copy(v);
      }
    };
  }

  /**
   * The bytes of one subtask's keyed state.
   *
   * @param range the key groups written
   * @param offsets where each key group starts
   * @param data the bytes
   */
  public record SerializedKeyGroups(KeyGroupRange range, long[] offsets, byte[] data) {}

  /** A frozen view of a backend's keyed state, written on another thread. */
  public static final class KeyedSnapshot {
    private final KeyGroupRange range;
    private final TypeSerializer<Object> keySerializer;
    private final List<String> names = new ArrayList<>();
    private final List<StateDescriptor.Kind> kinds = new ArrayList<>();
    private final List<TypeSerializer<Object>> valueSerializers = new ArrayList<>();
    private final List<TypeSerializer<Object>> mapKeySerializers = new ArrayList<>();
    private final List<StateTable.Snapshot<Object, Object>> tables = new ArrayList<>();

    @SuppressWarnings("unchecked")
    private KeyedSnapshot(HeapKeyedStateBackend<?> backend) {
      this.range = backend.getKeyGroupRange();
      this.keySerializer = (TypeSerializer<Object>) backend.getKeySerializer().duplicate();
      backend.tables.forEach(
          (name, state) -> {
            names.add(name);
            kinds.add(state.kind());
            valueSerializers.add((TypeSerializer<Object>) state.valueSerializer().duplicate());
            mapKeySerializers.add(
                state.mapKeySerializer() == null
                    ? null
                    : (TypeSerializer<Object>) state.mapKeySerializer().duplicate());
            tables.add(((StateTable<Object, Object>) (StateTable<?, ?>) state.table()).snapshot());
          });
    }

    public boolean isEmpty() {
      return tables.isEmpty();
    }

    /** The asynchronous part: serializes every key group. Any thread; call once. */
    @SuppressWarnings("unchecked")
    public SerializedKeyGroups write() throws IOException {
      try {
        DataOutputSerializer out = new DataOutputSerializer(64 * 1024);
        out.writeInt(VERSION);
        TypeSerializerSnapshot.writeVersionedSnapshot(out, keySerializer.snapshotConfiguration());
        out.writeInt(names.size());
        for (int s = 0; s < names.size(); s++) {
          out.writeUTF(names.get(s));
          out.writeByte(kinds.get(s).ordinal());
          TypeSerializerSnapshot.writeVersionedSnapshot(
              out, valueSerializers.get(s).snapshotConfiguration());
          if (kinds.get(s) == StateDescriptor.Kind.MAP) {
            TypeSerializerSnapshot.writeVersionedSnapshot(
                out, mapKeySerializers.get(s).snapshotConfiguration());
          }
        }
        long[] offsets = new long[range.getNumberOfKeyGroups()];
        for (int kg = range.startKeyGroup(); kg <= range.endKeyGroup(); kg++) {
          offsets[kg - range.startKeyGroup()] = out.length();
          for (int s = 0; s < tables.size(); s++) {
            Map<Object, Object> entries = tables.get(s).keyGroup(kg);
            out.writeInt(entries.size());
            TypeSerializer<Object> values = valueSerializers.get(s);
            StateDescriptor.Kind kind = kinds.get(s);
            for (Map.Entry<Object, Object> e : entries.entrySet()) {
              keySerializer.serialize(e.getKey(), out);
              switch (kind) {
                case LIST -> {
                  List<Object> list = (List<Object>) e.getValue();
                  out.writeInt(list.size());
                  for (Object element : list) {
                    values.serialize(element, out);
                  }
                }
                case MAP -> {
                  Map<Object, Object> map = (Map<Object, Object>) e.getValue();
                  out.writeInt(map.size());
                  TypeSerializer<Object> mapKeys = mapKeySerializers.get(s);
                  for (Map.Entry<Object, Object> m : map.entrySet()) {
                    mapKeys.serialize(m.getKey(), out);
                    values.serialize(m.getValue(), out);
                  }
                }
                default -> values.serialize(e.getValue(), out);
              }
            }
          }
        }
        return new SerializedKeyGroups(range, offsets, out.getCopyOfBuffer());
      } finally {
        release();
      }
    }

    /** Lets the tables stop copying for this snapshot; idempotent. */
    public void release() {
      for (StateTable.Snapshot<Object, Object> t : tables) {
        t.release();
      }
    }
  }

  /** The synchronous part of a snapshot: freezes every table. Task thread. */
  public static KeyedSnapshot snapshot(HeapKeyedStateBackend<?> backend) {
    return new KeyedSnapshot(backend);
  }

  /**
   * Loads, into an empty backend, the key groups of {@code sources} that fall in the backend's
   * range; works for any old and new parallelism.
   */
  @SuppressWarnings("unchecked")
  public static <K> void restore(
      HeapKeyedStateBackend<K> backend, List<SerializedKeyGroups> sources, ClassLoader loader)
      throws IOException {
    KeyGroupRange mine = backend.getKeyGroupRange();
    for (SerializedKeyGroups source : sources) {
      KeyGroupRange overlap = source.range().intersection(mine);
      if (overlap.getNumberOfKeyGroups() == 0) {
        continue;
      }
      DataInputDeserializer in = new DataInputDeserializer(source.data());
      int version = in.readInt();
      if (version != VERSION) {
        throw new IOException(
            "Keyed state of '"
                + backend.getOperatorName()
                + "' was written in format version "
                + version
                + "; this Weir reads version "
                + VERSION);
      }
      TypeSerializer<Object> keys =
          TypeSerializerSnapshot.<Object>readVersionedSnapshot(in, loader).restoreSerializer();
      int numStates = in.readInt();
      List<HeapKeyedStateBackend.RegisteredState<K>> states = new ArrayList<>();
      List<TypeSerializer<Object>> values = new ArrayList<>();
      List<TypeSerializer<Object>> mapKeys = new ArrayList<>();
      for (int s = 0; s < numStates; s++) {
        String name = in.readUTF();
        StateDescriptor.Kind kind = StateDescriptor.Kind.values()[in.readByte()];
        TypeSerializer<Object> valueSerializer =
            TypeSerializerSnapshot.<Object>readVersionedSnapshot(in, loader).restoreSerializer();
        TypeSerializer<Object> mapKeySerializer =
            kind == StateDescriptor.Kind.MAP
                ? TypeSerializerSnapshot.<Object>readVersionedSnapshot(in, loader)
                    .restoreSerializer()
                : null;
        values.add(valueSerializer);
        mapKeys.add(mapKeySerializer);
        HeapKeyedStateBackend.RegisteredState<K> state = backend.tables.get(name);
        if (state == null) {
          state =
              new HeapKeyedStateBackend.RegisteredState<>(
                  kind,
                  new StateTable<>(mine, valueCopier(kind, valueSerializer)),
                  valueSerializer,
                  mapKeySerializer);
          backend.tables.put(name, state);
        }
        states.add(state);
      }
      for (int kg = overlap.startKeyGroup(); kg <= overlap.endKeyGroup(); kg++) {
        int offset = (int) source.offsets()[kg - source.range().startKeyGroup()];
        in.setBuffer(source.data(), offset, source.data().length - offset);
        for (int s = 0; s < numStates; s++) {
          int entries = in.readInt();
          Map<K, Object> restored = new HashMap<>(entries * 4 / 3 + 1);
          for (int e = 0; e < entries; e++) {
            K key = (K) keys.deserialize(in);
            restored.put(key, readValue(in, states.get(s).kind(), values.get(s), mapKeys.get(s)));
          }
          states.get(s).table().putAllRestored(kg, restored);
        }
      }
    }
  }

  private static Object readValue(
      DataInputDeserializer in,
      StateDescriptor.Kind kind,
      TypeSerializer<Object> values,
      TypeSerializer<Object> mapKeys)
      throws IOException {
    switch (kind) {
      case LIST -> {
        int size = in.readInt();
        ArrayList<Object> list = new ArrayList<>(size);
        for (int i = 0; i < size; i++) {
          list.add(values.deserialize(in));
        }
        return list;
      }
      case MAP -> {
        int size = in.readInt();
        HashMap<Object, Object> map = new HashMap<>(size * 4 / 3 + 1);
        for (int i = 0; i < size; i++) {
          map.put(mapKeys.deserialize(in), values.deserialize(in));
        }
        return map;
      }
      default -> {
        return values.deserialize(in);
      }
    }
  }
}

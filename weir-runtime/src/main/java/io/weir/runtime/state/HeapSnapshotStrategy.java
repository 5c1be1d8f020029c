package io.weir.runtime.state;

import io.weir.api.state.StateDescriptor;
import io.weir.api.typeutils.DataInputDeserializer;
import io.weir.api.typeutils.DataInputView;
import io.weir.api.typeutils.DataOutputSerializer;
import io.weir.api.typeutils.DataOutputView;
import io.weir.api.typeutils.TypeSerializer;
import io.weir.api.typeutils.TypeSerializerSnapshot;
import io.weir.runtime.checkpoint.KeyGroupsStateHandle;
import io.weir.runtime.checkpoint.KeyedStateHandle;
import io.weir.runtime.checkpoint.StateSchema;
import io.weir.runtime.recovery.NonRecoverableException;
import io.weir.runtime.storage.CheckpointStateWriter;
import io.weir.runtime.storage.StreamStateHandle;
import java.io.IOException;
import java.io.OutputStream;
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

  /**
   * A snapshot serializes this much before handing it to the storage. A key group bigger than this
   * is serialized whole first.
   */
  static final int CHUNK_BYTES = 1 << 20;

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

  /**
   * One state in the header of the canonical format.
   *
   * @param name the state's name
   * @param kind its kind
   * @param valueSerializer serializer of the values (list/map: of the elements/map values)
   * @param mapKeySerializer for map state, serializer of the map keys; otherwise null
   */
  public record StateMeta(
      String name,
      StateDescriptor.Kind kind,
      TypeSerializer<Object> valueSerializer,
      TypeSerializer<Object> mapKeySerializer) {}

  /**
   * The header of a stream in the canonical format.
   *
   * @param keySerializer serializer of the keys
   * @param states the states, in the order their entries follow per key group
   */
  public record Header(TypeSerializer<Object> keySerializer, List<StateMeta> states) {}

  /** The metadata's description of one keyed state. */
  public static StateSchema.Entry schemaEntry(
      String name,
      StateDescriptor.Kind kind,
      TypeSerializer<?> valueSerializer,
      TypeSerializer<?> mapKeySerializer) {
    return new StateSchema.Entry(
        name,
        StateSchema.Kind.valueOf(kind.name()),
        StateSchema.snapshotBytes(valueSerializer),
        mapKeySerializer == null ? null : StateSchema.snapshotBytes(mapKeySerializer));
  }

  /** Writes the header: format version, key serializer, the states. */
  public static void writeHeader(
      DataOutputView out, TypeSerializer<?> keySerializer, List<StateMeta> states)
      throws IOException {
    out.writeInt(VERSION);
    TypeSerializerSnapshot.writeVersionedSnapshot(out, keySerializer.snapshotConfiguration());
    out.writeInt(states.size());
    for (StateMeta state : states) {
      out.writeUTF(state.name());
      out.writeByte(state.kind().ordinal());
      TypeSerializerSnapshot.writeVersionedSnapshot(
          out, state.valueSerializer().snapshotConfiguration());
      if (state.kind() == StateDescriptor.Kind.MAP) {
        TypeSerializerSnapshot.writeVersionedSnapshot(
            out, state.mapKeySerializer().snapshotConfiguration());
      }
    }
  }

  /**
   * Reads a header that {@link #writeHeader} wrote.
   *
   * @param operatorName names the operator in errors
   */
  public static Header readHeader(DataInputView in, ClassLoader loader, String operatorName)
      throws IOException {
    int version = in.readInt();
    if (version != VERSION) {
      throw new IOException(
          "Keyed state of '"
              + operatorName
              + "' was written in format version "
              + version
              + "; this Weir reads version "
              + VERSION);
    }
    TypeSerializer<Object> keys =
        TypeSerializerSnapshot.<Object>readVersionedSnapshot(in, loader).restoreSerializer();
    int numStates = in.readInt();
    List<StateMeta> states = new ArrayList<>(numStates);
    for (int s = 0; s < numStates; s++) {
      String name = in.readUTF();
      StateDescriptor.Kind kind = StateDescriptor.Kind.values()[in.readByte()];
      TypeSerializer<Object> valueSerializer =
          TypeSerializerSnapshot.<Object>readVersionedSnapshot(in, loader).restoreSerializer();
      TypeSerializer<Object> mapKeySerializer =
          kind == StateDescriptor.Kind.MAP
              ? TypeSerializerSnapshot.<Object>readVersionedSnapshot(in, loader).restoreSerializer()
              : null;
      states.add(new StateMeta(name, kind, valueSerializer, mapKeySerializer));
    }
    return new Header(keys, states);
  }

  /** A frozen view of a backend's keyed state, written on another thread. */
  public static final class KeyedSnapshot implements KeyedStateSnapshot {
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

    @Override
    public StateSchema schema() {
      List<StateSchema.Entry> states = new ArrayList<>(names.size());
      for (int s = 0; s < names.size(); s++) {
        states.add(
            schemaEntry(
                names.get(s), kinds.get(s), valueSerializers.get(s), mapKeySerializers.get(s)));
      }
      return new StateSchema(StateSchema.snapshotBytes(keySerializer), states);
    }

    /**
     * The asynchronous part: serializes every key group and stores the bytes. State that fits in
     * one chunk goes to the storage as an array (which may keep it inline); larger state streams
     * into the storage a chunk at a time, so a snapshot holds about {@link #CHUNK_BYTES} of
     * serialized state, never the whole of it. Any thread; call once.
     */
    @Override
    public KeyedStateHandle persist(
        long checkpointId, CheckpointStateWriter storage, String description) throws IOException {
      try {
        ChunkWriter writer = new ChunkWriter();
        writer.fill();
        String what = "keyed state of " + description;
        StreamStateHandle data =
            writer.done()
                ? storage.writeState(checkpointId, writer.out.getCopyOfBuffer(), what)
                : storage.writeState(checkpointId, what, writer::drainTo);
        return new KeyGroupsStateHandle(range, writer.offsets, data);
      } finally {
        release();
      }
    }

    /** Serializes the header and then the key groups in order, a chunk at a time. */
    private final class ChunkWriter {
      final DataOutputSerializer out = new DataOutputSerializer(64 * 1024);
      final long[] offsets = new long[range.getNumberOfKeyGroups()];
      private final List<StateMeta> metas = new ArrayList<>(names.size());
      private int nextKeyGroup = range.startKeyGroup();
      private boolean headerWritten;

      /** Bytes handed to the stream before those in {@link #out}. */
      private long drained;

      ChunkWriter() {
        for (int s = 0; s < names.size(); s++) {
          metas.add(
              new StateMeta(
                  names.get(s), kinds.get(s), valueSerializers.get(s), mapKeySerializers.get(s)));
        }
      }

      boolean done() {
        return headerWritten && nextKeyGroup > range.endKeyGroup();
      }

      /** Serializes key groups into {@link #out} until it holds a chunk or all are written. */
      void fill() throws IOException {
        if (!headerWritten) {
          writeHeader(out, keySerializer, metas);
          headerWritten = true;
        }
        while (nextKeyGroup <= range.endKeyGroup() && out.length() < CHUNK_BYTES) {
          offsets[nextKeyGroup - range.startKeyGroup()] = drained + out.length();
          writeKeyGroup(nextKeyGroup++);
        }
      }

      /** Hands what is serialized to {@code stream}, then the rest, a chunk at a time. */
      void drainTo(OutputStream stream) throws IOException {
        while (true) {
          stream.write(out.getSharedBuffer(), 0, out.length());
          drained += out.length();
          out.clear();
          if (done()) {
            return;
          }
          fill();
        }
      }

      @SuppressWarnings("unchecked")
      private void writeKeyGroup(int kg) throws IOException {
        for (int s = 0; s < tables.size(); s++) {
          TypeSerializer<Object> values = valueSerializers.get(s);
          StateDescriptor.Kind kind = kinds.get(s);
          if (kind != StateDescriptor.Kind.LIST && kind != StateDescriptor.Kind.MAP) {
            tables.get(s).writeKeyGroup(kg, keySerializer, values, out);
            continue;
          }
          Map<Object, Object> entries = tables.get(s).keyGroup(kg);
          out.writeInt(entries.size());
          for (Map.Entry<Object, Object> e : entries.entrySet()) {
            keySerializer.serialize(e.getKey(), out);
            if (kind == StateDescriptor.Kind.LIST) {
              List<Object> list = (List<Object>) e.getValue();
              out.writeInt(list.size());
              for (Object element : list) {
                values.serialize(element, out);
              }
            } else {
              Map<Object, Object> map = (Map<Object, Object>) e.getValue();
              out.writeInt(map.size());
              TypeSerializer<Object> mapKeys = mapKeySerializers.get(s);
              for (Map.Entry<Object, Object> m : map.entrySet()) {
                mapKeys.serialize(m.getKey(), out);
                values.serialize(m.getValue(), out);
              }
            }
          }
        }
      }
    }

    /** Lets the tables stop copying for this snapshot; idempotent. */
    @Override
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
      Header header = readHeader(in, loader, backend.getOperatorName());
      TypeSerializer<Object> keys = header.keySerializer();
      StateMigration.checkKey(
          backend.getOperatorName(), keys.snapshotConfiguration(), backend.getKeySerializer());
      int numStates = header.states().size();
      List<HeapKeyedStateBackend.RegisteredState<K>> states = new ArrayList<>();
      List<TypeSerializer<Object>> values = new ArrayList<>();
      List<TypeSerializer<Object>> mapKeys = new ArrayList<>();
      for (StateMeta meta : header.states()) {
        values.add(meta.valueSerializer());
        mapKeys.add(meta.mapKeySerializer());
        HeapKeyedStateBackend.RegisteredState<K> state = backend.tables.get(meta.name());
        if (state == null) {
          state =
              new HeapKeyedStateBackend.RegisteredState<>(
                  meta.kind(),
                  new StateTable<>(
                      mine,
                      valueCopier(meta.kind(), meta.valueSerializer()),
                      KeyGroupStore.Layout.of(meta.kind(), keys, meta.valueSerializer())),
                  meta.valueSerializer(),
                  meta.mapKeySerializer());
          backend.tables.put(meta.name(), state);
        }
        states.add(state);
      }
      for (int kg = overlap.startKeyGroup(); kg <= overlap.endKeyGroup(); kg++) {
        int offset = (int) source.offsets()[kg - source.range().startKeyGroup()];
        in.setBuffer(source.data(), offset, source.data().length - offset);
        for (int s = 0; s < numStates; s++) {
          int entries = in.readInt();
          Map<K, Object> restored = new HashMap<>(entries * 4 / 3 + 1);
          try {
            for (int e = 0; e < entries; e++) {
              K key = (K) keys.deserialize(in);
              restored.put(key, readValue(in, states.get(s).kind(), values.get(s), mapKeys.get(s)));
            }
          } catch (RuntimeException e) {
            throw doesNotFit(backend.getOperatorName(), header.states().get(s), e);
          }
          states.get(s).table().putAllRestored(kg, restored);
        }
      }
    }
  }

  /**
   * The heap reads restored values into the job's classes as they are now, before the job registers
   * the state (and says which serializer it wants): a component or field that changed its type
   * fails here, and would on every attempt.
   */
  private static NonRecoverableException doesNotFit(
      String operatorName, StateMeta state, RuntimeException cause) {
    return new NonRecoverableException(
        "State '"
            + state.name()
            + "' of operator '"
            + operatorName
            + "' cannot be restored: it was written as "
            + state.valueSerializer()
            + (state.mapKeySerializer() == null
                ? ""
                : " (map keys: " + state.mapKeySerializer() + ")")
            + " and its values do not fit the job's classes any more ("
            + cause
            + "). A record component or POJO field probably changed its type, which cannot be"
            + " migrated: restore with the old type or give the new state another name. Declare"
            + " the state in usesStates() to have this checked when the job is submitted.",
        cause);
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

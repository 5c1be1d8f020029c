package io.weir.runtime.checkpoint;

import io.weir.api.typeutils.DataInputDeserializer;
import io.weir.api.typeutils.DataOutputSerializer;
import io.weir.api.typeutils.TypeSerializer;
import io.weir.api.typeutils.TypeSerializerSnapshot;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.List;

/**
 * The serializer snapshots of one operator subtask's states, as a checkpoint's metadata holds them:
 * what wrote the state, so that a job resumed with other types can be checked against it before any
 * task runs. Each snapshot is kept as the bytes of a versioned snapshot ({@link
 * TypeSerializerSnapshot#writeVersionedSnapshot}), so that reading metadata needs no user classes;
 * {@link #restoreSnapshot} reads one with the job's class loader.
 *
 * @param keySerializer snapshot of the key serializer; null when the operator keeps no keyed state
 * @param states every keyed and operator state, in no particular order
 */
public record StateSchema(byte[] keySerializer, List<Entry> states) {

  public StateSchema {
    states = List.copyOf(states);
  }

  /** What kind of state an entry describes. */
  public enum Kind {
    VALUE,
    LIST,
    MAP,
    REDUCING,
    AGGREGATING,
    /** Operator list state, split on rescale. */
    OPERATOR_LIST,
    /** Operator union list state. */
    OPERATOR_UNION;

    /** True for operator (non-keyed) state. */
    public boolean isOperatorState() {
      return this == OPERATOR_LIST || this == OPERATOR_UNION;
    }
  }

  /**
   * One state.
   *
   * @param name the state's name
   * @param kind its kind
   * @param valueSerializer snapshot of the serializer of the values (list/map: elements/map values)
   * @param mapKeySerializer for map state, snapshot of the map-key serializer; otherwise null
   */
  public record Entry(String name, Kind kind, byte[] valueSerializer, byte[] mapKeySerializer) {}

  /** The entry named {@code name}, or null. */
  public Entry state(String name) {
    for (Entry e : states) {
      if (e.name().equals(name)) {
        return e;
      }
    }
    return null;
  }

  /** The bytes of {@code serializer}'s versioned snapshot. */
  public static byte[] snapshotBytes(TypeSerializer<?> serializer) {
    DataOutputSerializer out = new DataOutputSerializer(64);
    try {
      TypeSerializerSnapshot.writeVersionedSnapshot(out, serializer.snapshotConfiguration());
    } catch (IOException e) {
      throw new UncheckedIOException(
          "Cannot write the snapshot of serializer " + serializer + ": " + e.getMessage(), e);
    }
    return out.getCopyOfBuffer();
  }

  /** Reads bytes written by {@link #snapshotBytes}, loading classes with {@code loader}. */
  public static <T> TypeSerializerSnapshot<T> restoreSnapshot(byte[] bytes, ClassLoader loader)
      throws IOException {
    return TypeSerializerSnapshot.readVersionedSnapshot(new DataInputDeserializer(bytes), loader);
  }
}

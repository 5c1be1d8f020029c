package io.weir.api.typeutils;

import java.io.IOException;

/**
 * A versioned, serializable description of a {@link TypeSerializer}: enough to recreate the
 * serializer that wrote some state and to decide whether a new serializer can read it.
 *
 * <p>Implementations need a public no-argument constructor: restore creates them by class name,
 * then calls {@link #readSnapshot}.
 */
public interface TypeSerializerSnapshot<T> {

  /** The version {@link #writeSnapshot} writes now; older versions must stay readable. */
  int getCurrentVersion();

  void writeSnapshot(DataOutputView out) throws IOException;

  void readSnapshot(int readVersion, DataInputView in, ClassLoader classLoader) throws IOException;

  /** A serializer that reads data written by the serializer this snapshot describes. */
  TypeSerializer<T> restoreSerializer();

  /** Whether {@code newSerializer} can read data written by the serializer described here. */
  TypeSerializerSchemaCompatibility<T> resolveSchemaCompatibility(TypeSerializer<T> newSerializer);

  /** Writes a snapshot with its class name and version, so it can be read back on its own. */
  static void writeVersionedSnapshot(DataOutputView out, TypeSerializerSnapshot<?> snapshot)
      throws IOException {
    out.writeUTF(snapshot.getClass().getName());
    out.writeInt(snapshot.getCurrentVersion());
    snapshot.writeSnapshot(out);
  }

  /** Reads a snapshot written by {@link #writeVersionedSnapshot}. */
  @SuppressWarnings("unchecked")
  static <T> TypeSerializerSnapshot<T> readVersionedSnapshot(
      DataInputView in, ClassLoader classLoader) throws IOException {
    String className = in.readUTF();
    int version = in.readInt();
    TypeSerializerSnapshot<T> snapshot;
    try {
      snapshot =
          (TypeSerializerSnapshot<T>)
              Class.forName(className, true, classLoader).getDeclaredConstructor().newInstance();
    } catch (ReflectiveOperationException | ClassCastException e) {
      throw new IOException(
          "Cannot create serializer snapshot class '"
              + className
              + "': it must be on the classpath and have a public no-argument constructor",
          e);
    }
    snapshot.readSnapshot(version, in, classLoader);
    return snapshot;
  }
}

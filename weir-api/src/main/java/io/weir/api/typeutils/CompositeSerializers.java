package io.weir.api.typeutils;

import java.io.IOException;
import java.util.Arrays;
import java.util.List;

/**
 * What the serializers of containers (lists, maps, arrays, tuples, records) share: null markers in
 * front of nullable values, and writing, restoring and comparing the snapshots of their element
 * serializers.
 */
final class CompositeSerializers {

  private static final byte NULL = 0;
  private static final byte PRESENT = 1;

  private CompositeSerializers() {}

  /** Writes a one-byte null marker, then the value when there is one. */
  static <T> void writeNullable(T value, TypeSerializer<T> serializer, DataOutputView target)
      throws IOException {
    if (value == null) {
      target.writeByte(NULL);
    } else {
      target.writeByte(PRESENT);
      serializer.serialize(value, target);
    }
  }

  /** Reads what {@link #writeNullable} wrote. */
  static <T> T readNullable(TypeSerializer<T> serializer, DataInputView source) throws IOException {
    byte marker = source.readByte();
    if (marker == NULL) {
      return null;
    } else if (marker == PRESENT) {
      return serializer.deserialize(source);
    }
    throw new IOException("Corrupt data: null marker " + marker + " is neither 0 nor 1");
  }

  /** Copies a value written by {@link #writeNullable} without deserializing the marker's owner. */
  static void copyNullable(
      TypeSerializer<?> serializer, DataInputView source, DataOutputView target)
      throws IOException {
    byte marker = source.readByte();
    target.writeByte(marker);
    if (marker == PRESENT) {
      serializer.copy(source, target);
    } else if (marker != NULL) {
      throw new IOException("Corrupt data: null marker " + marker + " is neither 0 nor 1");
    }
  }

  static <T> T copyNullable(T value, TypeSerializer<T> serializer) {
    return value == null ? null : serializer.copy(value);
  }

  /** {@code serializers} themselves if none keeps state, otherwise duplicates of each. */
  @SuppressWarnings("ReferenceEquality") // stateless serializers duplicate to themselves
  static TypeSerializer<?>[] duplicateAll(TypeSerializer<?>[] serializers) {
    TypeSerializer<?>[] duplicates = new TypeSerializer<?>[serializers.length];
    boolean changed = false;
    for (int i = 0; i < serializers.length; i++) {
      duplicates[i] = serializers[i].duplicate();
      changed |= duplicates[i] != serializers[i];
    }
    return changed ? duplicates : serializers;
  }

  static boolean allImmutable(TypeSerializer<?>[] serializers) {
    return Arrays.stream(serializers).allMatch(TypeSerializer::isImmutableType);
  }

  /** Writes the snapshots of {@code serializers}, each with its class name and version. */
  static void writeNestedSnapshots(DataOutputView out, TypeSerializer<?>... serializers)
      throws IOException {
    out.writeInt(serializers.length);
    for (TypeSerializer<?> serializer : serializers) {
      TypeSerializerSnapshot.writeVersionedSnapshot(out, serializer.snapshotConfiguration());
    }
  }

  /** Writes snapshots taken earlier (so a restored snapshot can be written again unchanged). */
  static void writeNestedSnapshots(DataOutputView out, TypeSerializerSnapshot<?>[] snapshots)
      throws IOException {
    out.writeInt(snapshots.length);
    for (TypeSerializerSnapshot<?> snapshot : snapshots) {
      TypeSerializerSnapshot.writeVersionedSnapshot(out, snapshot);
    }
  }

  static TypeSerializerSnapshot<?>[] readNestedSnapshots(DataInputView in, ClassLoader classLoader)
      throws IOException {
    int count = in.readInt();
    if (count < 0 || count > 0xFFFF) {
      throw new IOException("Corrupt snapshot: " + count + " nested serializers");
    }
    TypeSerializerSnapshot<?>[] snapshots = new TypeSerializerSnapshot<?>[count];
    for (int i = 0; i < count; i++) {
      snapshots[i] = TypeSerializerSnapshot.readVersionedSnapshot(in, classLoader);
    }
    return snapshots;
  }

  static TypeSerializerSnapshot<?>[] snapshotsOf(TypeSerializer<?>[] serializers) {
    TypeSerializerSnapshot<?>[] snapshots = new TypeSerializerSnapshot<?>[serializers.length];
    for (int i = 0; i < serializers.length; i++) {
      snapshots[i] = serializers[i].snapshotConfiguration();
    }
    return snapshots;
  }

  static TypeSerializer<?>[] restoreAll(TypeSerializerSnapshot<?>[] snapshots) {
    TypeSerializer<?>[] serializers = new TypeSerializer<?>[snapshots.length];
    for (int i = 0; i < snapshots.length; i++) {
      serializers[i] = snapshots[i].restoreSerializer();
    }
    return serializers;
  }

  /**
   * Combines the compatibility of each nested serializer: incompatible if any is (naming which),
   * after migration if any needs it, as-is otherwise.
   */
  @SuppressWarnings("unchecked")
  static <T> TypeSerializerSchemaCompatibility<T> resolveNested(
      String owner,
      String[] labels,
      TypeSerializerSnapshot<?>[] oldSnapshots,
      TypeSerializer<?>[] newSerializers) {
    if (oldSnapshots.length != newSerializers.length) {
      return TypeSerializerSchemaCompatibility.incompatible(
          owner
              + " had "
              + oldSnapshots.length
              + " nested serializers and now has "
              + newSerializers.length);
    }
    boolean migrate = false;
    for (int i = 0; i < oldSnapshots.length; i++) {
      TypeSerializerSchemaCompatibility<Object> nested =
          ((TypeSerializerSnapshot<Object>) oldSnapshots[i])
              .resolveSchemaCompatibility((TypeSerializer<Object>) newSerializers[i]);
      if (nested.isIncompatible()) {
        return TypeSerializerSchemaCompatibility.incompatible(
            owner + ", " + labels[i] + ": " + nested.message());
      }
      migrate |= !nested.isCompatibleAsIs();
    }
    return migrate
        ? TypeSerializerSchemaCompatibility.compatibleAfterMigration()
        : TypeSerializerSchemaCompatibility.compatibleAsIs();
  }

  /**
   * Compatibility of a type whose fields are matched by name (records, POJOs): fields the type lost
   * are dropped and fields it gained take defaults, both through migration; a field whose
   * serializer is incompatible makes the whole type incompatible, naming the field. A field that
   * changed only between primitive and boxed (same serializer) migrates.
   */
  @SuppressWarnings("unchecked")
  static <T> TypeSerializerSchemaCompatibility<T> resolveByName(
      String owner,
      String[] oldNames,
      boolean[] oldNullable,
      TypeSerializerSnapshot<?>[] oldSnapshots,
      String[] newNames,
      boolean[] newNullable,
      TypeSerializer<?>[] newSerializers) {
    boolean migrate =
        !Arrays.equals(oldNames, newNames) || !Arrays.equals(oldNullable, newNullable);
    List<String> now = Arrays.asList(newNames);
    for (int i = 0; i < oldNames.length; i++) {
      int j = now.indexOf(oldNames[i]);
      if (j < 0) {
        continue; // dropped on migration
      }
      TypeSerializerSchemaCompatibility<Object> field =
          ((TypeSerializerSnapshot<Object>) oldSnapshots[i])
              .resolveSchemaCompatibility((TypeSerializer<Object>) newSerializers[j]);
      if (field.isIncompatible()) {
        return TypeSerializerSchemaCompatibility.incompatible(
            owner + " '" + oldNames[i] + "': " + field.message());
      }
      migrate |= !field.isCompatibleAsIs();
    }
    return migrate
        ? TypeSerializerSchemaCompatibility.compatibleAfterMigration()
        : TypeSerializerSchemaCompatibility.compatibleAsIs();
  }

  static String[] labels(String prefix, int count) {
    String[] labels = new String[count];
    for (int i = 0; i < count; i++) {
      labels[i] = prefix + i;
    }
    return labels;
  }

  static void checkVersion(int readVersion, int currentVersion, String what) throws IOException {
    if (readVersion < 1 || readVersion > currentVersion) {
      throw new IOException(
          "Snapshot version "
              + readVersion
              + " of the "
              + what
              + " is not known to this Weir, which reads versions 1 to "
              + currentVersion
              + "; restore with the Weir version that wrote it or a newer one");
    }
  }

  static Class<?> loadClass(String name, ClassLoader classLoader) throws IOException {
    try {
      return Class.forName(name, false, classLoader);
    } catch (ClassNotFoundException e) {
      throw new IOException(
          "The state refers to class " + name + ", which is not on the job's classpath", e);
    }
  }
}

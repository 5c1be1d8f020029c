package io.weir.api.typeutils;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * Enums, as the int ordinal. The snapshot keeps the constant names in ordinal order, so state
 * written before the constants were reordered is still read correctly (after migration), constants
 * added at the end change nothing, and a removed constant is reported.
 */
final class EnumSerializer<E extends Enum<E>> extends TypeSerializer<E> {

  private final Class<E> enumClass;

  /** The constant for each ordinal as written; differs from the enum's order only on restore. */
  private final E[] byOrdinal;

  /** False for a restored serializer that maps old ordinals: it only reads. */
  private final boolean currentOrder;

  EnumSerializer(Class<E> enumClass) {
    this(enumClass, enumClass.getEnumConstants());
  }

  private EnumSerializer(Class<E> enumClass, E[] byOrdinal) {
    this.enumClass = enumClass;
    this.byOrdinal = byOrdinal;
    this.currentOrder = Arrays.equals(byOrdinal, enumClass.getEnumConstants());
  }

  /** Reads ordinals that meant the constants {@code writtenNames}, which must all still exist. */
  static <E extends Enum<E>> EnumSerializer<E> forWrittenNames(
      Class<E> enumClass, String[] writtenNames) {
    E[] byOrdinal = Arrays.copyOf(enumClass.getEnumConstants(), writtenNames.length);
    for (int i = 0; i < writtenNames.length; i++) {
      byOrdinal[i] = Enum.valueOf(enumClass, writtenNames[i]);
    }
    return new EnumSerializer<>(enumClass, byOrdinal);
  }

  @Override
  public boolean isImmutableType() {
    return true;
  }

  @Override
  public TypeSerializer<E> duplicate() {
    return this;
  }

  @Override
  public E copy(E from) {
    return from;
  }

  @Override
  public int getLength() {
    return 4;
  }

  @Override
  @SuppressWarnings("EnumOrdinal") // the ordinal is the format; the snapshot keeps the names
  public void serialize(E record, DataOutputView target) throws IOException {
    if (!currentOrder) {
      throw new IllegalStateException(
          "This serializer reads state written with an older order of "
              + enumClass.getName()
              + "'s constants; it cannot write");
    }
    target.writeInt(record.ordinal());
  }

  @Override
  public E deserialize(DataInputView source) throws IOException {
    int ordinal = source.readInt();
    if (ordinal < 0 || ordinal >= byOrdinal.length) {
      throw new IOException(
          "Corrupt data: ordinal " + ordinal + " does not exist in " + enumClass.getName());
    }
    return byOrdinal[ordinal];
  }

  @Override
  public void copy(DataInputView source, DataOutputView target) throws IOException {
    target.write(source, 4);
  }

  @Override
  public TypeSerializerSnapshot<E> snapshotConfiguration() {
    return new Snapshot<>(this);
  }

  @Override
  public boolean equals(Object obj) {
    return obj instanceof EnumSerializer<?> that
        && enumClass == that.enumClass
        && Arrays.equals(byOrdinal, that.byOrdinal);
  }

  @Override
  public int hashCode() {
    return enumClass.hashCode();
  }

  @Override
  public String toString() {
    return "Enum<" + enumClass.getName() + ">";
  }

  /** The enum class and its constant names in ordinal order. */
  static final class Snapshot<E extends Enum<E>> implements TypeSerializerSnapshot<E> {
    private static final int VERSION = 1;

    private Class<E> enumClass;
    private String[] names;

    public Snapshot() {}

    Snapshot(EnumSerializer<E> serializer) {
      this.enumClass = serializer.enumClass;
      this.names = Arrays.stream(serializer.byOrdinal).map(Enum::name).toArray(String[]::new);
    }

    @Override
    public int getCurrentVersion() {
      return VERSION;
    }

    @Override
    public void writeSnapshot(DataOutputView out) throws IOException {
      out.writeUTF(enumClass.getName());
      out.writeInt(names.length);
      for (String name : names) {
        out.writeUTF(name);
      }
    }

    @Override
    @SuppressWarnings("unchecked")
    public void readSnapshot(int readVersion, DataInputView in, ClassLoader classLoader)
        throws IOException {
      CompositeSerializers.checkVersion(readVersion, VERSION, "enum serializer");
      String className = in.readUTF();
      Class<?> loaded = CompositeSerializers.loadClass(className, classLoader);
      if (!loaded.isEnum()) {
        throw new IOException("The state's enum " + className + " is no longer an enum");
      }
      enumClass = (Class<E>) loaded;
      int count = in.readInt();
      if (count < 0) {
        throw new IOException("Corrupt enum serializer snapshot: " + count + " constants");
      }
      names = new String[count];
      for (int i = 0; i < count; i++) {
        names[i] = in.readUTF();
      }
    }

    private List<String> removedNames() {
      Set<String> current =
          Arrays.stream(enumClass.getEnumConstants()).map(Enum::name).collect(Collectors.toSet());
      List<String> removed = new ArrayList<>();
      for (String name : names) {
        if (!current.contains(name)) {
          removed.add(name);
        }
      }
      return removed;
    }

    @Override
    public TypeSerializer<E> restoreSerializer() {
      List<String> removed = removedNames();
      if (!removed.isEmpty()) {
        throw new IllegalStateException(
            "The state holds constants "
                + removed
                + " that "
                + enumClass.getName()
                + " no longer has; add them back to restore it");
      }
      return forWrittenNames(enumClass, names);
    }

    @Override
    public TypeSerializerSchemaCompatibility<E> resolveSchemaCompatibility(
        TypeSerializer<E> newSerializer) {
      if (!(newSerializer instanceof EnumSerializer<E> enums) || enums.enumClass != enumClass) {
        return TypeSerializerSchemaCompatibility.incompatible(
            "The state was enum " + enumClass.getName() + " but is now read with " + newSerializer);
      }
      List<String> removed = removedNames();
      if (!removed.isEmpty()) {
        return TypeSerializerSchemaCompatibility.incompatible(
            "Constants "
                + removed
                + " were removed from enum "
                + enumClass.getName()
                + " but the state still holds them");
      }
      for (int i = 0; i < names.length; i++) {
        if (!enums.byOrdinal[i].name().equals(names[i])) {
          // Reordered: the old ordinals mean other constants now.
          return TypeSerializerSchemaCompatibility.compatibleAfterMigration();
        }
      }
      return TypeSerializerSchemaCompatibility.compatibleAsIs();
    }
  }
}

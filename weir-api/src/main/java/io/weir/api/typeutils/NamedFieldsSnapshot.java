package io.weir.api.typeutils;

import java.io.IOException;

/**
 * The snapshot of a serializer that writes a class's fields by name (records, POJOs): the class,
 * the written field names with their nullability, and each field serializer's own snapshot. It is
 * what lets a restore map old fields to new ones by name (see {@link
 * CompositeSerializers#resolveByName}).
 *
 * @param <T> the serialized type
 */
abstract class NamedFieldsSnapshot<T> implements TypeSerializerSnapshot<T> {
  private static final int VERSION = 1;

  protected Class<T> type;
  protected String[] fieldNames;
  protected boolean[] nullable;
  protected TypeSerializerSnapshot<?>[] nested;

  /** For reading. */
  protected NamedFieldsSnapshot() {}

  protected NamedFieldsSnapshot(
      Class<T> type, String[] fieldNames, boolean[] nullable, TypeSerializer<?>[] serializers) {
    this.type = type;
    this.fieldNames = fieldNames;
    this.nullable = nullable;
    this.nested = CompositeSerializers.snapshotsOf(serializers);
  }

  /** What the serializer is called in errors, e.g. "record serializer". */
  protected abstract String what();

  /** Throws when {@code loaded} can no longer be read by this kind of serializer. */
  protected void checkType(Class<?> loaded) throws IOException {}

  /** Writes what a subclass adds after the fields (nothing by default). */
  protected void writeExtra(DataOutputView out) throws IOException {}

  /** Reads what {@link #writeExtra} wrote in snapshot version {@code readVersion}. */
  protected void readExtra(int readVersion, DataInputView in) throws IOException {}

  @Override
  public int getCurrentVersion() {
    return VERSION;
  }

  @Override
  public void writeSnapshot(DataOutputView out) throws IOException {
    out.writeUTF(type.getName());
    out.writeInt(fieldNames.length);
    for (int i = 0; i < fieldNames.length; i++) {
      out.writeUTF(fieldNames[i]);
      out.writeBoolean(nullable[i]);
    }
    CompositeSerializers.writeNestedSnapshots(out, nested);
    writeExtra(out);
  }

  @Override
  @SuppressWarnings("unchecked")
  public void readSnapshot(int readVersion, DataInputView in, ClassLoader classLoader)
      throws IOException {
    CompositeSerializers.checkVersion(readVersion, getCurrentVersion(), what());
    Class<?> loaded = CompositeSerializers.loadClass(in.readUTF(), classLoader);
    checkType(loaded);
    type = (Class<T>) loaded;
    int count = in.readInt();
    if (count < 0 || count > 0xFFFF) {
      throw new IOException("Corrupt " + what() + " snapshot: " + count + " fields");
    }
    fieldNames = new String[count];
    nullable = new boolean[count];
    for (int i = 0; i < count; i++) {
      fieldNames[i] = in.readUTF();
      nullable[i] = in.readBoolean();
    }
    nested = CompositeSerializers.readNestedSnapshots(in, classLoader);
    if (nested.length != count) {
      throw new IOException(
          "Corrupt "
              + what()
              + " snapshot: "
              + count
              + " fields, "
              + nested.length
              + " serializers");
    }
    readExtra(readVersion, in);
  }
}

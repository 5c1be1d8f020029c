package io.weir.api.typeutils;

import java.io.IOException;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/** Snapshot of any {@link StatelessSerializer}: just its name. */
final class BasicSerializerSnapshot<T> implements TypeSerializerSnapshot<T> {

  private static final int VERSION = 1;

  private String name;

  /** For restore, which then calls {@link #readSnapshot}. */
  public BasicSerializerSnapshot() {}

  BasicSerializerSnapshot(StatelessSerializer<T> serializer) {
    this.name = serializer.name();
  }

  @Override
  public int getCurrentVersion() {
    return VERSION;
  }

  @Override
  public void writeSnapshot(DataOutputView out) throws IOException {
    out.writeUTF(name);
  }

  @Override
  public void readSnapshot(int readVersion, DataInputView in, ClassLoader classLoader)
      throws IOException {
    if (readVersion != VERSION) {
      throw new IOException("Unknown version " + readVersion + " of a basic serializer snapshot");
    }
    name = in.readUTF();
    if (!Registry.BY_NAME.containsKey(name)) {
      throw new IOException(
          "The state was written by a '" + name + "' serializer, which this Weir does not know");
    }
  }

  @Override
  @SuppressWarnings("unchecked")
  public TypeSerializer<T> restoreSerializer() {
    return (TypeSerializer<T>) Registry.BY_NAME.get(name);
  }

  @Override
  public TypeSerializerSchemaCompatibility<T> resolveSchemaCompatibility(
      TypeSerializer<T> newSerializer) {
    if (newSerializer instanceof StatelessSerializer<?> s && s.name().equals(name)) {
      return TypeSerializerSchemaCompatibility.compatibleAsIs();
    }
    return TypeSerializerSchemaCompatibility.incompatible(
        "The state was written with the "
            + name
            + " serializer but is now read with "
            + newSerializer
            + "; the state's type changed, so it cannot be restored");
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof BasicSerializerSnapshot<?> that && name.equals(that.name);
  }

  @Override
  public int hashCode() {
    return name.hashCode();
  }

  /** Every stateless serializer by name; in a holder so it is built on first restore only. */
  private static final class Registry {
    static final Map<String, StatelessSerializer<?>> BY_NAME = index();

    private static Map<String, StatelessSerializer<?>> index() {
      List<StatelessSerializer<?>> all =
          List.of(
              BasicSerializers.LongSerializer.INSTANCE,
              BasicSerializers.IntSerializer.INSTANCE,
              BasicSerializers.ShortSerializer.INSTANCE,
              BasicSerializers.ByteSerializer.INSTANCE,
              BasicSerializers.BooleanSerializer.INSTANCE,
              BasicSerializers.CharSerializer.INSTANCE,
              BasicSerializers.DoubleSerializer.INSTANCE,
              BasicSerializers.FloatSerializer.INSTANCE,
              BasicSerializers.VoidSerializer.INSTANCE,
              BasicSerializers.BigIntegerSerializer.INSTANCE,
              BasicSerializers.BigDecimalSerializer.INSTANCE,
              StringSerializer.INSTANCE,
              PrimitiveArraySerializers.ByteArraySerializer.INSTANCE,
              PrimitiveArraySerializers.ShortArraySerializer.INSTANCE,
              PrimitiveArraySerializers.IntArraySerializer.INSTANCE,
              PrimitiveArraySerializers.LongArraySerializer.INSTANCE,
              PrimitiveArraySerializers.FloatArraySerializer.INSTANCE,
              PrimitiveArraySerializers.DoubleArraySerializer.INSTANCE,
              PrimitiveArraySerializers.CharArraySerializer.INSTANCE,
              PrimitiveArraySerializers.BooleanArraySerializer.INSTANCE);
      Map<String, StatelessSerializer<?>> byName = new HashMap<>();
      for (StatelessSerializer<?> s : all) {
        if (byName.put(s.name(), s) != null) {
          throw new AssertionError("Two serializers are named " + s.name());
        }
      }
      return Map.copyOf(byName);
    }
  }
}

package io.weir.api.typeutils;

import static io.weir.api.typeutils.CompositeSerializers.copyNullable;
import static io.weir.api.typeutils.CompositeSerializers.readNullable;
import static io.weir.api.typeutils.CompositeSerializers.writeNullable;

import java.io.IOException;
import java.lang.reflect.Array;

/** Arrays of objects, {@code C[]}: an int length, then each element behind a null marker. */
final class ObjectArraySerializer<C> extends TypeSerializer<C[]> {

  private final Class<C> componentClass;
  private final TypeSerializer<C> componentSerializer;

  ObjectArraySerializer(Class<C> componentClass, TypeSerializer<C> componentSerializer) {
    if (componentClass.isPrimitive()) {
      throw new IllegalArgumentException(
          componentClass + "[] is a primitive array; use its own serializer");
    }
    this.componentClass = componentClass;
    this.componentSerializer = componentSerializer;
  }

  @Override
  public boolean isImmutableType() {
    return false;
  }

  @Override
  @SuppressWarnings("ReferenceEquality") // a stateless element serializer duplicates to itself
  public TypeSerializer<C[]> duplicate() {
    TypeSerializer<C> duplicate = componentSerializer.duplicate();
    return duplicate == componentSerializer
        ? this
        : new ObjectArraySerializer<>(componentClass, duplicate);
  }

  @Override
  public C[] copy(C[] from) {
    if (componentSerializer.isImmutableType()) {
      return from.clone();
    }
    C[] copy = newArray(from.length);
    for (int i = 0; i < from.length; i++) {
      copy[i] = copyNullable(from[i], componentSerializer);
    }
    return copy;
  }

  @SuppressWarnings("unchecked")
  private C[] newArray(int length) {
    return (C[]) Array.newInstance(componentClass, length);
  }

  @Override
  public void serialize(C[] record, DataOutputView target) throws IOException {
    target.writeInt(record.length);
    for (C element : record) {
      writeNullable(element, componentSerializer, target);
    }
  }

  @Override
  public C[] deserialize(DataInputView source) throws IOException {
    C[] array = newArray(PrimitiveArraySerializers.readLength(source));
    for (int i = 0; i < array.length; i++) {
      array[i] = readNullable(componentSerializer, source);
    }
    return array;
  }

  @Override
  public void copy(DataInputView source, DataOutputView target) throws IOException {
    int length = PrimitiveArraySerializers.readLength(source);
    target.writeInt(length);
    for (int i = 0; i < length; i++) {
      CompositeSerializers.copyNullable(componentSerializer, source, target);
    }
  }

  @Override
  public TypeSerializerSnapshot<C[]> snapshotConfiguration() {
    return new Snapshot<>(this);
  }

  @Override
  public boolean equals(Object obj) {
    return obj instanceof ObjectArraySerializer<?> that
        && componentClass == that.componentClass
        && componentSerializer.equals(that.componentSerializer);
  }

  @Override
  public int hashCode() {
    return 31 * componentClass.hashCode() + componentSerializer.hashCode();
  }

  @Override
  public String toString() {
    return componentClass.getSimpleName() + "[] of " + componentSerializer;
  }

  /** The component class name and the component serializer's snapshot. */
  static final class Snapshot<C> implements TypeSerializerSnapshot<C[]> {
    private static final int VERSION = 1;

    private Class<C> componentClass;
    private TypeSerializerSnapshot<?>[] nested;

    public Snapshot() {}

    Snapshot(ObjectArraySerializer<C> serializer) {
      this.componentClass = serializer.componentClass;
      this.nested =
          new TypeSerializerSnapshot<?>[] {serializer.componentSerializer.snapshotConfiguration()};
    }

    @Override
    public int getCurrentVersion() {
      return VERSION;
    }

    @Override
    public void writeSnapshot(DataOutputView out) throws IOException {
      out.writeUTF(componentClass.getName());
      CompositeSerializers.writeNestedSnapshots(out, nested);
    }

    @Override
    @SuppressWarnings("unchecked")
    public void readSnapshot(int readVersion, DataInputView in, ClassLoader classLoader)
        throws IOException {
      CompositeSerializers.checkVersion(readVersion, VERSION, "object array serializer");
      componentClass = (Class<C>) CompositeSerializers.loadClass(in.readUTF(), classLoader);
      nested = CompositeSerializers.readNestedSnapshots(in, classLoader);
      if (nested.length != 1) {
        throw new IOException("Corrupt array serializer snapshot: " + nested.length + " elements");
      }
    }

    @Override
    @SuppressWarnings("unchecked")
    public TypeSerializer<C[]> restoreSerializer() {
      return new ObjectArraySerializer<>(
          componentClass, (TypeSerializer<C>) nested[0].restoreSerializer());
    }

    @Override
    public TypeSerializerSchemaCompatibility<C[]> resolveSchemaCompatibility(
        TypeSerializer<C[]> newSerializer) {
      if (!(newSerializer instanceof ObjectArraySerializer<C> array)
          || array.componentClass != componentClass) {
        return TypeSerializerSchemaCompatibility.incompatible(
            "The state was an array of "
                + componentClass.getName()
                + " but is now read with "
                + newSerializer);
      }
      return CompositeSerializers.resolveNested(
          componentClass.getSimpleName() + "[]",
          new String[] {"component"},
          nested,
          new TypeSerializer<?>[] {array.componentSerializer});
    }
  }
}

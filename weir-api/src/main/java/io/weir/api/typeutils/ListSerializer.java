package io.weir.api.typeutils;

import static io.weir.api.typeutils.CompositeSerializers.copyNullable;
import static io.weir.api.typeutils.CompositeSerializers.readNullable;
import static io.weir.api.typeutils.CompositeSerializers.writeNullable;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * {@code java.util.List<E>}: an int size, then each element behind a null marker. Reads return an
 * {@link ArrayList}.
 */
final class ListSerializer<E> extends TypeSerializer<List<E>> {

  private final TypeSerializer<E> elementSerializer;

  ListSerializer(TypeSerializer<E> elementSerializer) {
    this.elementSerializer = elementSerializer;
  }

  TypeSerializer<E> elementSerializer() {
    return elementSerializer;
  }

  @Override
  public boolean isImmutableType() {
    return false;
  }

  @Override
  @SuppressWarnings("ReferenceEquality") // a stateless element serializer duplicates to itself
  public TypeSerializer<List<E>> duplicate() {
    TypeSerializer<E> duplicate = elementSerializer.duplicate();
    return duplicate == elementSerializer ? this : new ListSerializer<>(duplicate);
  }

  @Override
  public List<E> copy(List<E> from) {
    List<E> copy = new ArrayList<>(from.size());
    if (elementSerializer.isImmutableType()) {
      copy.addAll(from);
    } else {
      for (E element : from) {
        copy.add(copyNullable(element, elementSerializer));
      }
    }
    return copy;
  }

  @Override
  public void serialize(List<E> record, DataOutputView target) throws IOException {
    int size = record.size();
    target.writeInt(size);
    int written = 0;
    for (E element : record) {
      writeNullable(element, elementSerializer, target);
      written++;
    }
    if (written != size) {
      throw new IOException(
          "The list changed while it was serialized: size() was "
              + size
              + " but it had "
              + written
              + " elements");
    }
  }

  @Override
  public List<E> deserialize(DataInputView source) throws IOException {
    int size = readSize(source);
    List<E> list = new ArrayList<>(Math.min(size, 1 << 16));
    for (int i = 0; i < size; i++) {
      list.add(readNullable(elementSerializer, source));
    }
    return list;
  }

  @Override
  public void copy(DataInputView source, DataOutputView target) throws IOException {
    int size = readSize(source);
    target.writeInt(size);
    for (int i = 0; i < size; i++) {
      CompositeSerializers.copyNullable(elementSerializer, source, target);
    }
  }

  static int readSize(DataInputView source) throws IOException {
    int size = source.readInt();
    if (size < 0) {
      throw new IOException("Corrupt data: negative collection size " + size);
    }
    return size;
  }

  @Override
  public TypeSerializerSnapshot<List<E>> snapshotConfiguration() {
    return new Snapshot<>(this);
  }

  @Override
  public boolean equals(Object obj) {
    return obj instanceof ListSerializer<?> that
        && elementSerializer.equals(that.elementSerializer);
  }

  @Override
  public int hashCode() {
    return 31 * ListSerializer.class.hashCode() + elementSerializer.hashCode();
  }

  @Override
  public String toString() {
    return "List<" + elementSerializer + ">";
  }

  /** The element serializer's snapshot. */
  static final class Snapshot<E> implements TypeSerializerSnapshot<List<E>> {
    private static final int VERSION = 1;

    private TypeSerializerSnapshot<?>[] nested;

    public Snapshot() {}

    Snapshot(ListSerializer<E> serializer) {
      this.nested =
          new TypeSerializerSnapshot<?>[] {serializer.elementSerializer.snapshotConfiguration()};
    }

    @Override
    public int getCurrentVersion() {
      return VERSION;
    }

    @Override
    public void writeSnapshot(DataOutputView out) throws IOException {
      CompositeSerializers.writeNestedSnapshots(out, nested);
    }

    @Override
    public void readSnapshot(int readVersion, DataInputView in, ClassLoader classLoader)
        throws IOException {
      CompositeSerializers.checkVersion(readVersion, VERSION, "list serializer");
      nested = CompositeSerializers.readNestedSnapshots(in, classLoader);
      if (nested.length != 1) {
        throw new IOException("Corrupt list serializer snapshot: " + nested.length + " elements");
      }
    }

    @Override
    @SuppressWarnings("unchecked")
    public TypeSerializer<List<E>> restoreSerializer() {
      return new ListSerializer<>((TypeSerializer<E>) nested[0].restoreSerializer());
    }

    @Override
    public TypeSerializerSchemaCompatibility<List<E>> resolveSchemaCompatibility(
        TypeSerializer<List<E>> newSerializer) {
      if (!(newSerializer instanceof ListSerializer<E> list)) {
        return TypeSerializerSchemaCompatibility.incompatible(
            "The state was a List but is now read with " + newSerializer);
      }
      return CompositeSerializers.resolveNested(
          "List",
          new String[] {"element"},
          nested,
          new TypeSerializer<?>[] {list.elementSerializer});
    }
  }
}

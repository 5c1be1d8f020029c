package io.weir.api.typeutils;

import io.weir.api.tuple.Tuple;
import java.io.IOException;
import java.util.Arrays;

/**
 * {@link io.weir.api.tuple.Tuple2 Tuple2} to {@link io.weir.api.tuple.Tuple5 Tuple5}: the fields in
 * order, each behind a null marker.
 */
final class TupleSerializer<T extends Tuple> extends TypeSerializer<T> {

  private final TypeSerializer<Object>[] fieldSerializers;

  @SuppressWarnings("unchecked")
  TupleSerializer(TypeSerializer<?>[] fieldSerializers) {
    Tuple.getTupleClass(fieldSerializers.length); // checks the arity
    this.fieldSerializers = (TypeSerializer<Object>[]) fieldSerializers.clone();
  }

  int getArity() {
    return fieldSerializers.length;
  }

  @Override
  public boolean isImmutableType() {
    return false;
  }

  @Override
  public TypeSerializer<T> duplicate() {
    TypeSerializer<?>[] duplicates = CompositeSerializers.duplicateAll(fieldSerializers);
    return duplicates == fieldSerializers ? this : new TupleSerializer<>(duplicates);
  }

  @SuppressWarnings("unchecked")
  private T newTuple() {
    return (T) Tuple.newInstance(fieldSerializers.length);
  }

  @Override
  public T copy(T from) {
    T copy = newTuple();
    for (int i = 0; i < fieldSerializers.length; i++) {
      copy.setField(i, CompositeSerializers.copyNullable(from.getField(i), fieldSerializers[i]));
    }
    return copy;
  }

  @Override
  public void serialize(T record, DataOutputView target) throws IOException {
    for (int i = 0; i < fieldSerializers.length; i++) {
      CompositeSerializers.writeNullable(record.getField(i), fieldSerializers[i], target);
    }
  }

  @Override
  public T deserialize(DataInputView source) throws IOException {
    T tuple = newTuple();
    for (int i = 0; i < fieldSerializers.length; i++) {
      tuple.setField(i, CompositeSerializers.readNullable(fieldSerializers[i], source));
    }
    return tuple;
  }

  @Override
  public void copy(DataInputView source, DataOutputView target) throws IOException {
    for (TypeSerializer<Object> field : fieldSerializers) {
      CompositeSerializers.copyNullable(field, source, target);
    }
  }

  @Override
  public TypeSerializerSnapshot<T> snapshotConfiguration() {
    return new Snapshot<>(CompositeSerializers.snapshotsOf(fieldSerializers));
  }

  @Override
  public boolean equals(Object obj) {
    return obj instanceof TupleSerializer<?> that
        && Arrays.equals(fieldSerializers, that.fieldSerializers);
  }

  @Override
  public int hashCode() {
    return 31 * TupleSerializer.class.hashCode() + Arrays.hashCode(fieldSerializers);
  }

  @Override
  public String toString() {
    return "Tuple" + fieldSerializers.length + Arrays.toString(fieldSerializers);
  }

  /** The field serializers' snapshots; their number is the arity. */
  static final class Snapshot<T extends Tuple> implements TypeSerializerSnapshot<T> {
    private static final int VERSION = 1;

    private TypeSerializerSnapshot<?>[] nested;

    public Snapshot() {}

    Snapshot(TypeSerializerSnapshot<?>[] nested) {
      this.nested = nested;
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
      CompositeSerializers.checkVersion(readVersion, VERSION, "tuple serializer");
      nested = CompositeSerializers.readNestedSnapshots(in, classLoader);
      if (nested.length < 2 || nested.length > Tuple.MAX_ARITY) {
        throw new IOException("Corrupt tuple serializer snapshot: arity " + nested.length);
      }
    }

    @Override
    public TypeSerializer<T> restoreSerializer() {
      return new TupleSerializer<>(CompositeSerializers.restoreAll(nested));
    }

    @Override
    public TypeSerializerSchemaCompatibility<T> resolveSchemaCompatibility(
        TypeSerializer<T> newSerializer) {
      if (!(newSerializer instanceof TupleSerializer<T> tuple)
          || tuple.getArity() != nested.length) {
        return TypeSerializerSchemaCompatibility.incompatible(
            "The state was a Tuple" + nested.length + " but is now read with " + newSerializer);
      }
      return CompositeSerializers.resolveNested(
          "Tuple" + nested.length,
          CompositeSerializers.labels("field f", nested.length),
          nested,
          tuple.fieldSerializers);
    }
  }
}

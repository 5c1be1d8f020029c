package io.weir.api.typeutils;

import java.io.IOException;

/**
 * Turns values of one type into bytes and back, for the network and for state.
 *
 * <p>A serializer may keep scratch state (Kryo does), so it is used by one thread at a time; each
 * task takes its own copy with {@link #duplicate()}. Stateless serializers return {@code this}.
 * {@link #snapshotConfiguration()} describes the serializer so a restored checkpoint can check it
 * still reads what was written.
 */
public abstract class TypeSerializer<T> {

  /** True if values of this type are never mutated, so {@link #copy} may return its argument. */
  public abstract boolean isImmutableType();

  /** A serializer safe to use from another thread than this one. */
  public abstract TypeSerializer<T> duplicate();

  /** A deep copy of {@code from}; the argument itself when the type is immutable. */
  public abstract T copy(T from);

  /** The length in bytes of every serialized value, or -1 when lengths vary. */
  public int getLength() {
    return -1;
  }

  public abstract void serialize(T record, DataOutputView target) throws IOException;

  public abstract T deserialize(DataInputView source) throws IOException;

  /** Copies one serialized value from {@code source} to {@code target}. */
  public void copy(DataInputView source, DataOutputView target) throws IOException {
    serialize(deserialize(source), target);
  }

  /** A versioned description of this serializer, written into checkpoints and savepoints. */
  public abstract TypeSerializerSnapshot<T> snapshotConfiguration();

  @Override
  public abstract boolean equals(Object obj);

  @Override
  public abstract int hashCode();
}

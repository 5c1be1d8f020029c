package io.weir.api.typeutils;

import java.lang.reflect.Type;

/**
 * Type information for a fully known type, holding the serializer built for it. Two are equal when
 * their types are equal and their serializers are configured alike (so {@code
 * Types.GENERIC(Foo.class)} differs from {@code Types.RECORD(Foo.class)}).
 */
final class KnownTypeInfo<T> extends TypeInformation<T> {

  private final Type type;
  private final Class<T> typeClass;

  /** Never used itself, only duplicated: it may be a Kryo serializer with scratch state. */
  private final TypeSerializer<T> prototype;

  @SuppressWarnings("unchecked")
  KnownTypeInfo(Type type, TypeSerializer<T> prototype) {
    this.type = type;
    this.typeClass = (Class<T>) GenericTypes.rawClass(type);
    this.prototype = prototype;
  }

  @Override
  public Class<T> getTypeClass() {
    return typeClass;
  }

  @Override
  public Type getType() {
    return type;
  }

  @Override
  public TypeSerializer<T> createSerializer() {
    return prototype.duplicate();
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof KnownTypeInfo<?> that
        && type.equals(that.type)
        && prototype.equals(that.prototype);
  }

  @Override
  public int hashCode() {
    return type.hashCode();
  }

  @Override
  public String toString() {
    String name = GenericTypes.simpleName(type);
    return prototype instanceof KryoSerializer<?> ? "GenericType<" + name + ">" : name;
  }
}

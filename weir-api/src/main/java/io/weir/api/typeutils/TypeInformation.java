package io.weir.api.typeutils;

import java.lang.reflect.Type;

/**
 * What Weir knows about the type of a stream's elements or of a state's values: enough to create a
 * {@link TypeSerializer}. Obtain one from {@link Types}, {@link #of(Class)}, {@link #of(TypeHint)},
 * or let Weir extract it from a function's signature.
 */
public abstract class TypeInformation<T> {

  /** The (raw) class of the values. */
  public abstract Class<T> getTypeClass();

  /** The full generic type of the values, e.g. {@code Tuple2<String, Long>}. */
  public abstract Type getType();

  /** A new serializer for the values; callers that share it across threads must duplicate it. */
  public abstract TypeSerializer<T> createSerializer();

  /** True when the type could not be determined; {@link #createSerializer} then throws. */
  public boolean isMissing() {
    return false;
  }

  public static <T> TypeInformation<T> of(Class<T> typeClass) {
    return TypeInfos.of(typeClass);
  }

  public static <T> TypeInformation<T> of(TypeHint<T> typeHint) {
    return typeHint.getTypeInfo();
  }

  /** Type information for a reflective (possibly generic) type. */
  public static TypeInformation<?> of(Type type) {
    return TypeInfos.of(type);
  }

  /** Placeholder for a type that could not be determined; using it throws {@code reason}. */
  public static <T> TypeInformation<T> missing(InvalidTypesException reason) {
    return new MissingTypeInfo<>(reason);
  }

  /** Equal when of the same kind and for equal types. */
  @Override
  public boolean equals(Object obj) {
    return obj instanceof TypeInformation<?> that
        && getClass() == that.getClass()
        && !isMissing()
        && !that.isMissing()
        && getType().equals(that.getType());
  }

  @Override
  public int hashCode() {
    return isMissing() ? System.identityHashCode(this) : getType().hashCode();
  }

  /** The type with simple class names, such as {@code Tuple2<String, Long>}. */
  @Override
  public String toString() {
    return isMissing() ? "MissingType" : GenericTypes.simpleName(getType());
  }
}

package io.weir.api.typeutils;

import java.lang.reflect.Type;
import java.lang.reflect.TypeVariable;
import java.lang.reflect.WildcardType;
import java.util.Objects;

/** Creates {@link TypeInformation} for classes and reflective types. */
final class TypeInfos {

  private TypeInfos() {}

  @SuppressWarnings("unchecked")
  static <T> TypeInformation<T> of(Class<T> typeClass) {
    return (TypeInformation<T>) of((Type) typeClass);
  }

  /**
   * Type information for {@code type}: primitives become their boxes, wildcards their upper bound.
   *
   * @throws InvalidTypesException if the type has type variables or cannot be serialized
   */
  @SuppressWarnings({"unchecked", "rawtypes"})
  static TypeInformation<?> of(Type type) {
    Objects.requireNonNull(type, "type");
    Type canonical = canonical(type);
    TypeVariable<?> variable = GenericTypes.findTypeVariable(canonical);
    if (variable != null) {
      throw new InvalidTypesException(
          "Type "
              + type.getTypeName()
              + " has the type variable "
              + variable.getName()
              + ", which Java erases at runtime; Weir needs the concrete type, such as"
              + " Types.LIST(Types.STRING) or new TypeHint<List<String>>(){}");
    }
    return new KnownTypeInfo(canonical, SerializerFactory.create(canonical));
  }

  /** Type information whose serializer is the given one. */
  static <T> TypeInformation<T> withSerializer(Type type, TypeSerializer<T> serializer) {
    return new KnownTypeInfo<>(type, serializer);
  }

  private static Type canonical(Type type) {
    if (type instanceof Class<?> c) {
      return GenericTypes.box(c);
    } else if (type instanceof WildcardType w) {
      return canonical(w.getUpperBounds()[0]);
    }
    return type;
  }
}

package io.weir.api.typeutils;

import java.lang.reflect.ParameterizedType;
import java.lang.reflect.Type;

/**
 * Captures a generic type that Java would otherwise erase: {@code new TypeHint<Tuple2<String,
 * Long>>(){}} is an anonymous subclass whose superclass keeps {@code Tuple2<String, Long>}. Use it
 * with {@code .returns(...)} or {@link TypeInformation#of(TypeHint)}.
 *
 * @param <T> the type to capture; it must be concrete, not a type variable
 */
public abstract class TypeHint<T> {

  private final TypeInformation<T> typeInfo;

  /**
   * Reads the type argument of the anonymous subclass.
   *
   * @throws InvalidTypesException if the type argument is missing or holds type variables
   */
  @SuppressWarnings("unchecked")
  protected TypeHint() {
    Type hinted = GenericTypes.resolveSupertype(getClass(), TypeHint.class);
    if (!(hinted instanceof ParameterizedType parameterized)) {
      throw new InvalidTypesException(
          getClass().getName()
              + " extends the raw TypeHint; give the type, as in"
              + " new TypeHint<Tuple2<String, Long>>(){}");
    }
    Type type = parameterized.getActualTypeArguments()[0];
    if (GenericTypes.findTypeVariable(type) != null) {
      throw new InvalidTypesException(
          "A TypeHint needs a concrete type, but "
              + getClass().getName()
              + " captures "
              + type.getTypeName()
              + ", whose type variables Java erases. Create the TypeHint where the type is"
              + " concrete, as in new TypeHint<Tuple2<String, Long>>(){}");
    }
    this.typeInfo = (TypeInformation<T>) TypeInfos.of(type);
  }

  /** The type information of the captured type. */
  public TypeInformation<T> getTypeInfo() {
    return typeInfo;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof TypeHint<?> that && typeInfo.equals(that.typeInfo);
  }

  @Override
  public int hashCode() {
    return typeInfo.hashCode();
  }

  @Override
  public String toString() {
    return "TypeHint<" + typeInfo + ">";
  }
}

package io.weir.api.typeutils;

import java.lang.reflect.Type;

/**
 * Stands for a type that could not be determined, so that building a pipeline can go on until the
 * user supplies the type (with {@code .returns(...)}) or the type is actually needed, which then
 * throws the stored reason.
 */
final class MissingTypeInfo<T> extends TypeInformation<T> {

  private final InvalidTypesException reason;

  MissingTypeInfo(InvalidTypesException reason) {
    this.reason = reason;
  }

  @Override
  public boolean isMissing() {
    return true;
  }

  @Override
  public Class<T> getTypeClass() {
    throw reason;
  }

  @Override
  public Type getType() {
    throw reason;
  }

  @Override
  public TypeSerializer<T> createSerializer() {
    throw reason;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof MissingTypeInfo<?> that && reason.equals(that.reason);
  }

  @Override
  public int hashCode() {
    return reason.hashCode();
  }

  @Override
  public String toString() {
    return "MissingType(" + reason.getMessage() + ")";
  }
}

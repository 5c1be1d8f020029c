package io.weir.api.typeutils;

/**
 * A function or source that knows the type of what it produces, where the type cannot be read from
 * its class's signature (a generic class), as Flink's {@code ResultTypeQueryable}.
 */
public interface ResultTypeQueryable<T> {

  /** The type of the records produced. */
  TypeInformation<T> getProducedType();
}

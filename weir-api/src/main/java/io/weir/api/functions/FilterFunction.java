package io.weir.api.functions;

/** Keeps the elements for which {@link #filter} returns true. */
@FunctionalInterface
public interface FilterFunction<T> extends Function {
  boolean filter(T value) throws Exception;
}

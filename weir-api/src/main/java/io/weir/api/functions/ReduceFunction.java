package io.weir.api.functions;

/** Combines two values into one of the same type; must be associative. */
@FunctionalInterface
public interface ReduceFunction<T> extends Function {
  T reduce(T value1, T value2) throws Exception;
}

package io.weir.api.functions;

/** Turns each element into exactly one element. */
@FunctionalInterface
public interface MapFunction<T, O> extends Function {
  O map(T value) throws Exception;
}

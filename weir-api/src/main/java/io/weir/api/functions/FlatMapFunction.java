package io.weir.api.functions;

/** Turns each element into zero or more elements. */
@FunctionalInterface
public interface FlatMapFunction<T, O> extends Function {
  void flatMap(T value, Collector<O> out) throws Exception;
}

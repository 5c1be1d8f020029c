package io.weir.api.functions;

/** Folds inputs into an accumulator and reads a result from it. */
public interface AggregateFunction<IN, ACC, OUT> extends Function {
  ACC createAccumulator();

  ACC add(IN value, ACC accumulator);

  OUT getResult(ACC accumulator);

  ACC merge(ACC a, ACC b);
}

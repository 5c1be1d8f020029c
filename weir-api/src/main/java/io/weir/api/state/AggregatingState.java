package io.weir.api.state;

/** An accumulator per key that {@code add} folds into with an aggregate function. */
public interface AggregatingState<IN, OUT> extends AppendingState<IN, OUT> {}

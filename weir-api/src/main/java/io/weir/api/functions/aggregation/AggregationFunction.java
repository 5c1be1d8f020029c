package io.weir.api.functions.aggregation;

import io.weir.api.functions.ReduceFunction;

/**
 * The reduce functions behind the built-in aggregations of keyed and windowed streams, as Flink's
 * {@code AggregationFunction}: the first argument is the aggregate so far, the second the new
 * element, and neither is changed.
 */
public abstract class AggregationFunction<T> implements ReduceFunction<T> {
  private static final long serialVersionUID = 1L;

  /** The aggregations, as Flink names them. */
  public enum AggregationType {
    /** Adds the field; the other fields are the first element's. */
    SUM,
    /** The field's smallest value; the other fields are the first element's. */
    MIN,
    /** The field's largest value; the other fields are the first element's. */
    MAX,
    /** The whole element with the field's smallest value. */
    MINBY,
    /** The whole element with the field's largest value. */
    MAXBY
  }
}

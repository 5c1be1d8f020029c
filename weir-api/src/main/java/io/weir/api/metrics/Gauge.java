package io.weir.api.metrics;

/**
 * A value read when the metrics are reported, as Flink's {@code Gauge}. Prometheus reports numbers
 * and booleans (1 or 0); another value is reported as NaN.
 *
 * @param <T> the value's type
 */
@FunctionalInterface
public interface Gauge<T> extends Metric {

  /** The value now; called from the reporter's thread. */
  T getValue();
}

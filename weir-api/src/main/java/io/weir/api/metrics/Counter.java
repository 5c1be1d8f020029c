package io.weir.api.metrics;

/** A count that goes up and down, as Flink's {@code Counter}. */
public interface Counter extends Metric {

  /** Adds one. */
  void inc();

  /** Adds {@code n}. */
  void inc(long n);

  /** Takes one away. */
  void dec();

  /** Takes {@code n} away. */
  void dec(long n);

  /** The count now. */
  long getCount();
}

package io.weir.api.metrics;

/** A distribution of values, as Flink's {@code Histogram}. */
public interface Histogram extends Metric {

  /** Adds a value. */
  void update(long value);

  /** Values added in all. */
  long getCount();

  /** The statistics of the values it holds now. */
  HistogramStatistics getStatistics();
}

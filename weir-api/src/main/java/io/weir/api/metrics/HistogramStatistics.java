package io.weir.api.metrics;

/** The statistics of a {@link Histogram}'s values at one moment, as Flink's. */
public abstract class HistogramStatistics {

  /** The value below which {@code quantile} (0 to 1) of the values lie. */
  public abstract double getQuantile(double quantile);

  /** The values themselves. */
  public abstract long[] getValues();

  /** How many values. */
  public abstract int size();

  public abstract double getMean();

  public abstract double getStdDev();

  public abstract long getMax();

  public abstract long getMin();
}

package io.weir.api.metrics;

import java.util.Arrays;

/**
 * A {@link Histogram} of the last {@code windowSize} values, as Flink's {@code
 * DescriptiveStatisticsHistogram}: quantiles by the R-7 estimate (linear interpolation, as
 * spreadsheets and NumPy compute them). Updated by the function's thread, read by the reporter's:
 * the statistics are of a copy taken under a lock.
 */
public class DescriptiveStatisticsHistogram implements Histogram {

  private final long[] window;
  private long count;

  /** A histogram of the last {@code windowSize} values (at least 1). */
  public DescriptiveStatisticsHistogram(int windowSize) {
    if (windowSize < 1) {
      throw new IllegalArgumentException(
          "DescriptiveStatisticsHistogram: the window must hold at least 1 value, but was "
              + windowSize);
    }
    this.window = new long[windowSize];
  }

  @Override
  public synchronized void update(long value) {
    window[(int) (count % window.length)] = value;
    count++;
  }

  @Override
  public synchronized long getCount() {
    return count;
  }

  @Override
  public HistogramStatistics getStatistics() {
    long[] values;
    synchronized (this) {
      values = Arrays.copyOf(window, (int) Math.min(count, window.length));
    }
    Arrays.sort(values);
    return new Sorted(values);
  }

  /** Statistics over sorted values. */
  private static final class Sorted extends HistogramStatistics {
    private final long[] values;

    Sorted(long[] values) {
      this.values = values;
    }

    @Override
    public double getQuantile(double quantile) {
      if (quantile < 0 || quantile > 1 || Double.isNaN(quantile)) {
        throw new IllegalArgumentException("A quantile lies in [0, 1], but was " + quantile);
      }
      if (values.length == 0) {
        return Double.NaN;
      }
      double position = quantile * (values.length - 1);
      int below = (int) Math.floor(position);
      int above = Math.min(below + 1, values.length - 1);
      return values[below] + (position - below) * (values[above] - values[below]);
    }

    @Override
    public long[] getValues() {
      return values.clone();
    }

    @Override
    public int size() {
      return values.length;
    }

    @Override
    public double getMean() {
      if (values.length == 0) {
        return Double.NaN;
      }
      double sum = 0;
      for (long v : values) {
        sum += v;
      }
      return sum / values.length;
    }

    @Override
    public double getStdDev() {
      if (values.length < 2) {
        return values.length == 0 ? Double.NaN : 0;
      }
      double mean = getMean();
      double squares = 0;
      for (long v : values) {
        squares += (v - mean) * (v - mean);
      }
      return Math.sqrt(squares / (values.length - 1));
    }

    @Override
    public long getMax() {
      return values.length == 0 ? 0 : values[values.length - 1];
    }

    @Override
    public long getMin() {
      return values.length == 0 ? 0 : values[0];
    }
  }
}

package io.weir.benchmarks;

import java.util.Arrays;
import java.util.List;

/** Small statistics over run figures. */
public final class Stats {
  private Stats() {}

  /** The median; the mean of the middle two for an even count. */
  public static double median(List<Double> values) {
    if (values.isEmpty()) {
      throw new IllegalArgumentException("No values to take the median of.");
    }
    double[] sorted = values.stream().mapToDouble(Double::doubleValue).toArray();
    Arrays.sort(sorted);
    int mid = sorted.length / 2;
    return sorted.length % 2 == 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
  }
}

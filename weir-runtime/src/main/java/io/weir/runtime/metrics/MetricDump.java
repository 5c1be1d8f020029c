package io.weir.runtime.metrics;

import io.weir.api.metrics.Counter;
import io.weir.api.metrics.Gauge;
import io.weir.api.metrics.Histogram;
import io.weir.api.metrics.HistogramStatistics;
import io.weir.api.metrics.Meter;
import io.weir.api.metrics.Metric;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A subtask's function metrics as Flink's REST API names and shows them ({@code GET
 * /jobs/:jobid/vertices/:vertexid/metrics}): each under {@code <operator>.<scope>.<name>}, every
 * part with the characters Flink's metric query service replaces ({@code ' '}, {@code '.'}, {@code
 * ':'}, {@code ','}) as {@code '_'}, and its value as text. A counter shows its count, a gauge its
 * value's {@code toString()} (none while the value is null), a meter its rate per second, and a
 * histogram, as Flink's, one entry per statistic: {@code <name>_min}, {@code _max}, {@code _mean},
 * {@code _stddev}, {@code _p50}, {@code _p75}, {@code _p90}, {@code _p95}, {@code _p98}, {@code
 * _p99} and {@code _p999}.
 */
public final class MetricDump {

  private static final Logger LOG = LoggerFactory.getLogger(MetricDump.class);

  private static final String[] QUANTILE_NAMES = {"p50", "p75", "p90", "p95", "p98", "p99", "p999"};
  private static final double[] QUANTILES = {0.5, 0.75, 0.9, 0.95, 0.98, 0.99, 0.999};

  private MetricDump() {}

  /** The values of {@code metrics} now, by their names in Flink's REST API, sorted by name. */
  public static Map<String, String> of(List<UserMetrics.UserMetric> metrics) {
    Map<String, String> values = new TreeMap<>();
    for (UserMetrics.UserMetric m : metrics) {
      try {
        put(values, name(m), m.metric());
      } catch (RuntimeException e) {
        // A gauge that throws is the function's bug; the other metrics are still shown.
        LOG.debug("Reading metric '{}' of operator '{}' failed", m.name(), m.operatorName(), e);
      }
    }
    return values;
  }

  /** {@code <operator>.<scope>.<name>}, each part filtered as Flink's query service does. */
  static String name(UserMetrics.UserMetric metric) {
    List<String> parts = new ArrayList<>();
    parts.add(metric.operatorName());
    parts.addAll(metric.scope());
    parts.add(metric.name());
    return String.join(".", parts.stream().map(MetricDump::filter).toList());
  }

  /** {@code part} with {@code ' '}, {@code '.'}, {@code ':'} and {@code ','} replaced by '_'. */
  public static String filter(String part) {
    StringBuilder filtered = new StringBuilder(part.length());
    for (int i = 0; i < part.length(); i++) {
      char c = part.charAt(i);
      filtered.append(c == ' ' || c == '.' || c == ':' || c == ',' ? '_' : c);
    }
    return filtered.toString();
  }

  private static void put(Map<String, String> values, String name, Metric metric) {
    if (metric instanceof Counter counter) {
      values.put(name, String.valueOf(counter.getCount()));
    } else if (metric instanceof Gauge<?> gauge) {
      Object value = gauge.getValue();
      if (value != null) {
        values.put(name, value.toString());
      }
    } else if (metric instanceof Meter meter) {
      values.put(name, String.valueOf(meter.getRate()));
    } else if (metric instanceof Histogram histogram) {
      HistogramStatistics statistics = histogram.getStatistics();
      values.put(name + "_min", String.valueOf(statistics.getMin()));
      values.put(name + "_max", String.valueOf(statistics.getMax()));
      values.put(name + "_mean", String.valueOf(statistics.getMean()));
      values.put(name + "_stddev", String.valueOf(statistics.getStdDev()));
      for (int i = 0; i < QUANTILES.length; i++) {
        values.put(
            name + "_" + QUANTILE_NAMES[i], String.valueOf(statistics.getQuantile(QUANTILES[i])));
      }
    }
  }
}

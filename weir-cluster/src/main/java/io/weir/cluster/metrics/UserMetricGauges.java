package io.weir.cluster.metrics;

import io.micrometer.core.instrument.Tags;
import io.weir.api.metrics.Counter;
import io.weir.api.metrics.Gauge;
import io.weir.api.metrics.Histogram;
import io.weir.api.metrics.Meter;
import io.weir.api.metrics.Metric;
import io.weir.runtime.metrics.UserMetrics.UserMetric;
import java.util.List;
import java.util.function.Supplier;

/**
 * A function's metric as Prometheus gauges, as Flink's Prometheus reporter shows it: named {@code
 * weir_taskmanager_job_task_operator_<groups>_<name>}, labelled with the subtask's labels, {@code
 * operator_id}, {@code operator_name} and the variables of key-value groups. A counter is its
 * count, a gauge its value (a number, or a boolean as 1 or 0; anything else NaN), a meter its rate
 * per second, a histogram its quantiles 0.5 to 0.999 (label {@code quantile}) and {@code _count}.
 */
final class UserMetricGauges {

  static final String PREFIX = "weir.taskmanager.job.task.operator.";

  /** Flink's Prometheus reporter's quantiles of a histogram. */
  static final List<Double> QUANTILES = List.of(0.5, 0.75, 0.95, 0.98, 0.99, 0.999);

  /** Registers a gauge: name, description, tags, value. */
  @FunctionalInterface
  interface GaugeRegistrar {
    void gauge(String name, String description, Tags tags, Supplier<Number> value);
  }

  private UserMetricGauges() {}

  /** Registers {@code metric} of a subtask tagged {@code subtaskTags} through {@code registrar}. */
  static void register(UserMetric metric, Tags subtaskTags, GaugeRegistrar registrar) {
    StringBuilder name = new StringBuilder(PREFIX);
    metric.groups().forEach(group -> name.append(group).append('.'));
    name.append(metric.name());
    Tags tags =
        subtaskTags.and("operator_id", metric.operatorId(), "operator_name", metric.operatorName());
    for (var variable : metric.variables().entrySet()) {
      tags = tags.and(variable.getKey(), variable.getValue());
    }
    String description = "User metric '" + metric.name() + "' of " + metric.operatorName();
    Metric m = metric.metric();
    if (m instanceof Counter counter) {
      registrar.gauge(name.toString(), description, tags, () -> counter.getCount());
    } else if (m instanceof Gauge<?> gauge) {
      registrar.gauge(name.toString(), description, tags, () -> number(gauge));
    } else if (m instanceof Meter meter) {
      registrar.gauge(name.toString(), description, tags, meter::getRate);
    } else if (m instanceof Histogram histogram) {
      for (double quantile : QUANTILES) {
        registrar.gauge(
            name.toString(),
            description,
            tags.and("quantile", String.valueOf(quantile)),
            () -> histogram.getStatistics().getQuantile(quantile));
      }
      registrar.gauge(name + ".count", description, tags, histogram::getCount);
    } else {
      throw new IllegalArgumentException(
          "it is a " + m.getClass().getName() + ", not a Counter, Gauge, Meter or Histogram");
    }
  }

  private static Number number(Gauge<?> gauge) {
    Object value;
    try {
      value = gauge.getValue();
    } catch (RuntimeException e) {
      return Double.NaN;
    }
    if (value instanceof Number n) {
      return n;
    }
    if (value instanceof Boolean b) {
      return b ? 1 : 0;
    }
    return Double.NaN;
  }
}

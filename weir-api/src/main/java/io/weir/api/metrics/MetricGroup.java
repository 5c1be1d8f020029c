package io.weir.api.metrics;

import java.util.List;
import java.util.Map;

/**
 * Where a function registers its metrics, as Flink's {@code MetricGroup}: {@code
 * getRuntimeContext().getMetricGroup()} is the operator's group; {@link #addGroup(String)} nests a
 * group whose name becomes part of the metric's name, {@link #addGroup(String, String)} one whose
 * key is part of the name and whose value a label (as Flink's Prometheus reporter does).
 *
 * <p>A name registered twice in one group keeps the first metric: the second is returned but not
 * reported, with a warning naming the operator and the metric.
 */
public interface MetricGroup {

  /** Registers and returns a new {@link SimpleCounter}. */
  Counter counter(String name);

  /** Registers {@code counter} and returns it. */
  <C extends Counter> C counter(String name, C counter);

  /** Registers {@code gauge} and returns it. */
  <T, G extends Gauge<T>> G gauge(String name, G gauge);

  /** Registers {@code meter} and returns it. */
  <M extends Meter> M meter(String name, M meter);

  /** Registers {@code histogram} and returns it. */
  <H extends Histogram> H histogram(String name, H histogram);

  /** A nested group named {@code name}. */
  MetricGroup addGroup(String name);

  /** A nested group named by the number {@code name}. */
  default MetricGroup addGroup(int name) {
    return addGroup(String.valueOf(name));
  }

  /**
   * A nested group with a variable: {@code key} in the names, {@code value} in the label {@code
   * key}.
   */
  MetricGroup addGroup(String key, String value);

  /** The group's scope: the TaskManager's, job's, task's and operator's names, then the groups'. */
  List<String> getScopeComponents();

  /** The group's variables ({@code <job_id>}, {@code <operator_name>}, ...) with their values. */
  Map<String, String> getAllVariables();

  /** The full name of a metric {@code metricName} of this group, its scope joined with dots. */
  String getMetricIdentifier(String metricName);
}

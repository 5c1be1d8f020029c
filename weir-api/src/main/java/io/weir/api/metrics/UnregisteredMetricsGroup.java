package io.weir.api.metrics;

import java.util.List;
import java.util.Map;

/**
 * A metric group that reports nothing, as Flink's {@code UnregisteredMetricsGroup}: every metric
 * registered on it is returned and works, and no reporter sees it. For a function or source reader
 * run outside a job (a unit test), and wherever a group is needed that no one reads.
 */
public class UnregisteredMetricsGroup implements OperatorMetricGroup {

  @Override
  public Counter counter(String name) {
    return new SimpleCounter();
  }

  @Override
  public <C extends Counter> C counter(String name, C counter) {
    return counter;
  }

  @Override
  public <T, G extends Gauge<T>> G gauge(String name, G gauge) {
    return gauge;
  }

  @Override
  public <M extends Meter> M meter(String name, M meter) {
    return meter;
  }

  @Override
  public <H extends Histogram> H histogram(String name, H histogram) {
    return histogram;
  }

  @Override
  public MetricGroup addGroup(String name) {
    return this;
  }

  @Override
  public MetricGroup addGroup(String key, String value) {
    return this;
  }

  @Override
  public List<String> getScopeComponents() {
    return List.of();
  }

  @Override
  public Map<String, String> getAllVariables() {
    return Map.of();
  }

  @Override
  public String getMetricIdentifier(String metricName) {
    return metricName;
  }
}

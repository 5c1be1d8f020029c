/**
 * Metrics a job's functions define, as Flink's {@code org.apache.flink.metrics}: counters, gauges,
 * meters and histograms registered on the operator's {@link io.weir.api.metrics.MetricGroup}
 * ({@code getRuntimeContext().getMetricGroup()}), reported with Flink's names and labels by the
 * TaskManager's Prometheus endpoint (docs/monitoring.md).
 */
package io.weir.api.metrics;

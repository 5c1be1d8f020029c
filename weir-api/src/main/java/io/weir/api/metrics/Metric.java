package io.weir.api.metrics;

/**
 * Anything a {@link MetricGroup} reports: a {@link Counter}, {@link Gauge}, {@link Meter} or {@link
 * Histogram}.
 */
public interface Metric {}

package io.weir.api.metrics;

/** The metric group of one operator's subtask, as Flink's {@code OperatorMetricGroup}. */
public interface OperatorMetricGroup extends MetricGroup {}

/**
 * The metrics every process serves to Prometheus ({@code metrics.reporter.prom.port}, Flink's key):
 * {@link io.weir.cluster.metrics.ProcessMetrics} binds the JVM's, the jobs' (from {@link
 * io.weir.runtime.jobmaster.JobMaster#currentMetrics()}), the subtasks' (from the counters each
 * task keeps, {@link io.weir.runtime.metrics.TaskIOMetrics}) and the state backends' native memory
 * to a Micrometer registry, which {@code PrometheusEndpoint} serves. See {@code
 * docs/monitoring.md}.
 */
package io.weir.cluster.metrics;

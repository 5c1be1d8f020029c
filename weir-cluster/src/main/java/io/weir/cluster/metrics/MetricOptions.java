package io.weir.cluster.metrics;

import io.weir.api.config.ConfigOption;
import io.weir.api.config.ConfigOptions;

/**
 * The settings of the metrics every process reports, with the keys of Flink's Prometheus reporter
 * ({@code metrics.reporter.prom.*}). Known to the one registry through {@link
 * io.weir.cluster.ClusterOptions}.
 */
public final class MetricOptions {

  private MetricOptions() {}

  public static final ConfigOption<String> PROMETHEUS_PORT =
      ConfigOptions.key("metrics.reporter.prom.port")
          .stringType()
          .noDefaultValue()
          .withDescription(
              "The port of the Prometheus endpoint of every JobManager and TaskManager process (and"
                  + " of weir run's local session cluster), or ports to try in order, as Flink's"
                  + " Prometheus reporter takes them: a range (9250-9260) or a list (9250,9252):"
                  + " each process serves on the first one free, so processes on one host can share"
                  + " the setting; 0 picks any free port. Unset: no endpoint, and no metrics are"
                  + " kept.");

  public static final ConfigOption<String> PROMETHEUS_HOST =
      ConfigOptions.key("metrics.reporter.prom.host")
          .stringType()
          .noDefaultValue()
          .withDescription(
              "The address the Prometheus endpoint binds to; unset: the process's bind host"
                  + " (jobmanager.bind-host or taskmanager.bind-host, 127.0.0.1 by default).");
}

package io.weir.cluster.metrics;

import io.weir.api.config.ConfigOption;
import io.weir.api.config.ConfigOptions;
import java.time.Duration;

/**
 * The settings of the metrics every process reports and of the checkpoint spans the JobManager
 * sends, with the keys of Flink's Prometheus reporter ({@code metrics.reporter.prom.*}) and
 * OpenTelemetry trace reporter ({@code traces.reporter.otel.*}). Known to the one registry through
 * {@link io.weir.cluster.ClusterOptions}.
 */
public final class MetricOptions {

  private MetricOptions() {}

  /**
   * Whether {@code key} is a reporter's: of the metrics ({@code metrics.*}) or of the checkpoint
   * spans ({@code traces.*}). A process reads them from its own configuration, never from a job's.
   */
  public static boolean isReporterKey(String key) {
    return key.startsWith("metrics.") || key.startsWith("traces.");
  }

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

  public static final ConfigOption<String> PROMETHEUS_FACTORY =
      ConfigOptions.key("metrics.reporter.prom.factory.class")
          .stringType()
          .noDefaultValue()
          .withDescription(
              "Accepted as Flink's configurations write it"
                  + " (org.apache.flink.metrics.prometheus.PrometheusReporterFactory) and otherwise"
                  + " ignored: Weir's Prometheus endpoint is built in and turned on by"
                  + " metrics.reporter.prom.port.");

  public static final ConfigOption<String> OTLP_ENDPOINT =
      ConfigOptions.key("traces.reporter.otel.exporter.endpoint")
          .stringType()
          .noDefaultValue()
          .withDescription(
              "Where the JobManager (and weir run's local session cluster) sends a span of every"
                  + " checkpoint and savepoint, as Flink's OpenTelemetry trace reporter does: an"
                  + " OTLP/HTTP collector, e.g. http://127.0.0.1:4318 (/v1/traces is added when"
                  + " the URL has no path). Unset: no spans.");

  public static final ConfigOption<String> OTLP_PROTOCOL =
      ConfigOptions.key("traces.reporter.otel.exporter.protocol")
          .stringType()
          .defaultValue("HTTP")
          .withDescription(
              "How spans are sent: HTTP (OTLP/HTTP with protobuf) is the one Weir speaks; gRPC,"
                  + " Flink's default, is refused at start with a message that says what to set.");

  public static final ConfigOption<Duration> OTLP_TIMEOUT =
      ConfigOptions.key("traces.reporter.otel.exporter.timeout")
          .durationType()
          .defaultValue(Duration.ofSeconds(10))
          .withDescription("How long one export of spans may take before it is given up.");

  public static final ConfigOption<String> OTLP_SERVICE_NAME =
      ConfigOptions.key("traces.reporter.otel.service.name")
          .stringType()
          .defaultValue("weir")
          .withDescription("The service.name resource attribute of the spans.");

  public static final ConfigOption<String> OTLP_FACTORY =
      ConfigOptions.key("traces.reporter.otel.factory.class")
          .stringType()
          .noDefaultValue()
          .withDescription(
              "Accepted as Flink's configurations write it"
                  + " (org.apache.flink.traces.otel.OpenTelemetryTraceReporterFactory) and otherwise"
                  + " ignored: the span reporter is built in and turned on by"
                  + " traces.reporter.otel.exporter.endpoint.");
}

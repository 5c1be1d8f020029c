package io.weir.cluster.metrics;

import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.context.Context;
import io.opentelemetry.exporter.otlp.http.trace.OtlpHttpSpanExporter;
import io.opentelemetry.sdk.resources.Resource;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.export.BatchSpanProcessor;
import io.opentelemetry.sdk.trace.export.SpanExporter;
import io.weir.api.CheckpointStatistics;
import io.weir.api.CheckpointStatistics.CriticalPath;
import io.weir.api.CheckpointStatistics.SubtaskCheckpointStatistics;
import io.weir.cluster.ClusterOptions;
import io.weir.runtime.metrics.TaskMetricsReporter;
import java.net.URI;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Sends a span of every checkpoint and savepoint of the JobManager's jobs to an OpenTelemetry
 * collector over OTLP/HTTP, as Flink's trace reporter does ({@code traces.reporter.otel.*}): the
 * span {@code Checkpoint} (or {@code Savepoint}) from trigger to end with Flink's attributes, one
 * child per subtask from the trigger to its acknowledgement, and under each the phases the flight
 * recorder measured (start delay, alignment, sync, async), the critical one marked.
 *
 * <p>The flight recorder's statistics are read once a second off every job's checkpoint
 * coordinator; a checkpoint is sent once it has ended, with the times it recorded, so the delay
 * changes no figure. Checkpoints triggered before this JobManager ran the job (a history taken up
 * from storage) were another JobManager's to send.
 */
public final class CheckpointSpans implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(CheckpointSpans.class);

  /** No endpoint configured: registers nothing, sends nothing. */
  public static final CheckpointSpans DISABLED = new CheckpointSpans(null, null, null);

  private static final long POLL_MILLIS = 1_000;

  private final SdkTracerProvider provider;
  private final Tracer tracer;
  private final ScheduledExecutorService poller;
  private final Map<String, Watched> jobs = new ConcurrentHashMap<>();

  private CheckpointSpans(
      SdkTracerProvider provider, Tracer tracer, ScheduledExecutorService poller) {
    this.provider = provider;
    this.tracer = tracer;
    this.poller = poller;
  }

  /**
   * Starts sending spans to {@code traces.reporter.otel.exporter.endpoint}, or returns {@link
   * #DISABLED} when it is unset.
   *
   * @throws IllegalArgumentException naming the key whose value cannot be used
   */
  public static CheckpointSpans start(ClusterOptions options) {
    String endpoint = options.get(MetricOptions.OTLP_ENDPOINT);
    if (endpoint == null || endpoint.isBlank()) {
      return DISABLED;
    }
    String protocol = options.get(MetricOptions.OTLP_PROTOCOL).trim();
    if (!protocol.equalsIgnoreCase("HTTP") && !protocol.equalsIgnoreCase("http/protobuf")) {
      throw new IllegalArgumentException(
          MetricOptions.OTLP_PROTOCOL.key()
              + " is '"
              + protocol
              + "', but Weir sends spans over OTLP/HTTP only: set it to HTTP and "
              + MetricOptions.OTLP_ENDPOINT.key()
              + " to the collector's HTTP endpoint (port 4318 by default)");
    }
    SpanExporter exporter =
        OtlpHttpSpanExporter.builder()
            .setEndpoint(tracesUrl(endpoint))
            .setTimeout(options.get(MetricOptions.OTLP_TIMEOUT))
            .build();
    return start(exporter, options.get(MetricOptions.OTLP_SERVICE_NAME));
  }

  /** Sends spans through {@code exporter}, for the service {@code serviceName}. */
  static CheckpointSpans start(SpanExporter exporter, String serviceName) {
    SdkTracerProvider provider =
        SdkTracerProvider.builder()
            .setResource(
                Resource.getDefault()
                    .merge(
                        Resource.create(
                            Attributes.of(AttributeKey.stringKey("service.name"), serviceName))))
            .addSpanProcessor(BatchSpanProcessor.builder(exporter).build())
            .build();
    ScheduledExecutorService poller =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "weir-checkpoint-spans");
              t.setDaemon(true);
              return t;
            });
    CheckpointSpans spans =
        new CheckpointSpans(provider, provider.get("io.weir.checkpoint"), poller);
    poller.scheduleWithFixedDelay(spans::poll, POLL_MILLIS, POLL_MILLIS, TimeUnit.MILLISECONDS);
    return spans;
  }

  /** The URL of the traces path below {@code endpoint}, which may name only the collector. */
  static String tracesUrl(String endpoint) {
    URI uri;
    try {
      uri = URI.create(endpoint.trim());
    } catch (IllegalArgumentException e) {
      uri = null;
    }
    if (uri == null
        || uri.getScheme() == null
        || !(uri.getScheme().equals("http") || uri.getScheme().equals("https"))
        || uri.getHost() == null) {
      throw new IllegalArgumentException(
          MetricOptions.OTLP_ENDPOINT.key()
              + " is '"
              + endpoint
              + "': it must be an http:// or https:// URL of an OTLP collector, e.g."
              + " http://127.0.0.1:4318");
    }
    String path = uri.getPath();
    return path == null || path.isEmpty() || path.equals("/")
        ? endpoint.trim().replaceAll("/$", "") + "/v1/traces"
        : endpoint.trim();
  }

  /** Whether spans are sent. */
  public boolean enabled() {
    return tracer != null;
  }

  /**
   * Sends the spans of job {@code jobId}'s checkpoints that end from now on, read from {@code
   * statistics}, until the registration is closed (when the job ends here); closing sends those
   * that ended last.
   */
  public TaskMetricsReporter.Registration registerJob(
      String jobId, String jobName, Supplier<List<CheckpointStatistics>> statistics) {
    if (tracer == null) {
      return () -> {};
    }
    Watched watched = new Watched(jobId, jobName, statistics, System.currentTimeMillis());
    jobs.put(jobId, watched);
    return () -> {
      jobs.remove(jobId, watched);
      poller.execute(() -> send(watched));
    };
  }

  private void poll() {
    for (Watched job : jobs.values()) {
      send(job);
    }
  }

  private void send(Watched job) {
    try {
      List<CheckpointStatistics> history = job.statistics.get();
      for (CheckpointStatistics c : history) {
        if (c.status() != CheckpointStatistics.Status.IN_PROGRESS
            && c.triggerTimestamp() >= job.since
            && job.sent.add(c.checkpointId())) {
          emit(job, c);
        }
      }
      if (!history.isEmpty()) {
        // What the history forgot cannot come back: the ids sent stay as few as it holds.
        long oldest = history.get(0).checkpointId();
        job.sent.removeIf(id -> id < oldest);
      }
    } catch (RuntimeException e) {
      LOG.warn("Could not read the checkpoints of job {} for their spans", job.jobId, e);
    }
  }

  private void emit(Watched job, CheckpointStatistics c) {
    long trigger = c.triggerTimestamp();
    long end = trigger + Math.max(0, c.endToEndDurationMillis());
    CriticalPath critical = c.criticalPath();
    Span root =
        tracer
            .spanBuilder(c.savepoint() ? "Savepoint" : "Checkpoint")
            .setNoParent()
            .setStartTimestamp(trigger, TimeUnit.MILLISECONDS)
            .setAttribute("jobId", job.jobId)
            .setAttribute("jobName", job.jobName)
            .setAttribute("checkpointId", c.checkpointId())
            .setAttribute("checkpointStatus", c.status().name())
            .setAttribute("fullSize", c.stateSizeBytes())
            .setAttribute("checkpointedSize", c.checkpointedSizeBytes())
            .setAttribute("isUnaligned", c.unaligned())
            .setAttribute("isSavepoint", c.savepoint())
            .startSpan();
    if (critical != null) {
      root.setAttribute("criticalPath", critical.description());
      root.setAttribute("criticalPhase", phaseName(critical.phase()));
      root.setAttribute("advice", critical.advice());
    }
    if (c.status() == CheckpointStatistics.Status.FAILED) {
      root.setStatus(StatusCode.ERROR, String.valueOf(c.failureMessage()));
    }
    Context parent = Context.root().with(root);
    Map<String, Integer> parallelism = new HashMap<>();
    for (SubtaskCheckpointStatistics s : c.subtasks()) {
      parallelism.merge(s.taskName(), s.subtaskIndex() + 1, Math::max);
    }
    for (SubtaskCheckpointStatistics s : c.subtasks()) {
      boolean onPath =
          critical != null
              && critical.vertexIndex() == s.vertexIndex()
              && critical.subtaskIndex() == s.subtaskIndex();
      long acknowledged = s.ackTimestamp() >= 0 ? s.ackTimestamp() : end;
      Span lane =
          tracer
              .spanBuilder(
                  s.taskName()
                      + " ("
                      + (s.subtaskIndex() + 1)
                      + "/"
                      + parallelism.get(s.taskName())
                      + ")")
              .setParent(parent)
              .setStartTimestamp(trigger, TimeUnit.MILLISECONDS)
              .setAttribute("vertexId", Integer.toString(s.vertexIndex()))
              .setAttribute("subtaskIndex", s.subtaskIndex())
              .setAttribute("stateSize", s.stateSizeBytes())
              .setAttribute("checkpointedSize", s.checkpointedSizeBytes())
              .setAttribute("channelStateSize", s.channelStateBytes())
              .setAttribute("unaligned", s.unaligned())
              .setAttribute("criticalPath", onPath)
              .startSpan();
      Context inLane = parent.with(lane);
      long at = trigger;
      at = phase(inLane, "start delay", at, s.startDelayMillis(), onPath, critical, "START_DELAY");
      at =
          phase(
              inLane, "alignment", at, s.alignmentDurationMillis(), onPath, critical, "ALIGNMENT");
      at = phase(inLane, "sync", at, s.syncDurationMillis(), onPath, critical, "SYNC");
      phase(inLane, "async", at, s.asyncDurationMillis(), onPath, critical, "ASYNC");
      lane.end(Math.max(trigger, acknowledged), TimeUnit.MILLISECONDS);
    }
    root.end(end, TimeUnit.MILLISECONDS);
  }

  private long phase(
      Context lane,
      String name,
      long start,
      long millis,
      boolean onPath,
      CriticalPath critical,
      String phase) {
    tracer
        .spanBuilder(name)
        .setParent(lane)
        .setStartTimestamp(start, TimeUnit.MILLISECONDS)
        .setAttribute("criticalPath", onPath && critical.phase().name().equals(phase))
        .startSpan()
        .end(start + millis, TimeUnit.MILLISECONDS);
    return start + millis;
  }

  private static String phaseName(CheckpointStatistics.Phase phase) {
    return phase.name().toLowerCase(Locale.ROOT);
  }

  /** Sends what is pending and stops. */
  @Override
  public void close() {
    if (provider == null) {
      return;
    }
    poller.shutdown();
    try {
      if (!poller.awaitTermination(10, TimeUnit.SECONDS)) {
        poller.shutdownNow();
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    provider.forceFlush().join(10, TimeUnit.SECONDS);
    provider.shutdown().join(10, TimeUnit.SECONDS);
  }

  /** Blocks until the spans made so far are sent (tests). */
  void flush() {
    try {
      poller.submit(this::poll).get(10, TimeUnit.SECONDS);
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
    provider.forceFlush().join(10, TimeUnit.SECONDS);
  }

  /** A job whose checkpoints are watched. */
  private static final class Watched {
    final String jobId;
    final String jobName;
    final Supplier<List<CheckpointStatistics>> statistics;
    final long since;
    final Set<Long> sent = new HashSet<>();

    Watched(
        String jobId, String jobName, Supplier<List<CheckpointStatistics>> statistics, long since) {
      this.jobId = jobId;
      this.jobName = jobName;
      this.statistics = statistics;
      this.since = since;
    }
  }
}

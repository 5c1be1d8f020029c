package io.weir.cluster.metrics;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.binder.jvm.ClassLoaderMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmGcMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmMemoryMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmThreadMetrics;
import io.micrometer.core.instrument.binder.system.ProcessorMetrics;
import io.micrometer.core.instrument.binder.system.UptimeMetrics;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.weir.cluster.ClusterOptions;
import io.weir.runtime.metrics.JobMetrics;
import io.weir.runtime.metrics.RestoreProgress;
import io.weir.runtime.metrics.TaskIOMetrics;
import io.weir.runtime.metrics.TaskMetricsReporter;
import io.weir.runtime.metrics.TaskScope;
import io.weir.runtime.metrics.UserMetrics;
import io.weir.runtime.state.KeyedStateBackendFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.ServiceLoader;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The metrics of one process (a JobManager, a TaskManager, or both in {@code weir run}'s local
 * session cluster), served to Prometheus: the JVM's (Micrometer's binders), the jobs a JobManager
 * runs (Flink's job metrics), the subtasks a TaskManager runs (Flink's task metrics, from counters
 * the tasks keep: no call here per record), and the native memory of the state backends there.
 *
 * <p>{@link #DISABLED} when {@code metrics.reporter.prom.port} is unset: no registry, no thread,
 * nothing measured beyond the tasks' own counters. Thread-safe.
 */
public final class ProcessMetrics implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(ProcessMetrics.class);

  /** How often rates are sampled: Flink's view update interval. */
  static final long SAMPLE_INTERVAL_MILLIS = 5_000;

  /** The window of the record and byte rates: Flink's meters average over 60 s. */
  private static final int RECORD_RATE_INTERVALS = 12;

  /** What each job metric is, for the scrape's HELP lines. */
  private static final Map<String, String> JOB_METRICS =
      Map.of(
          "lastCheckpointDuration",
          "End to end duration of the newest completed checkpoint or savepoint, ms; -1 before one",
          "lastCheckpointSize",
          "Bytes the newest completed checkpoint wrote (incremental: its new files); -1 before one",
          "lastCheckpointFullSize",
          "Bytes of state the newest completed checkpoint refers to; -1 before one",
          "numberOfCompletedCheckpoints",
          "Checkpoints and savepoints completed since the job master started",
          "numberOfFailedCheckpoints",
          "Checkpoints and savepoints aborted since the job master started",
          "numberOfInProgressCheckpoints",
          "Checkpoints and savepoints triggered and not yet ended",
          "lastCheckpointRestoreTimestamp",
          "When the job last restored a checkpoint or savepoint, epoch ms; -1 before any",
          "numRestarts",
          "Restarts of the job since the job master started",
          "uptime",
          "Time the job has been running since it last started to, ms; 0 when not running");

  /** Reports nothing and serves nothing. */
  public static final ProcessMetrics DISABLED = new ProcessMetrics();

  private final PrometheusMeterRegistry registry;
  private final PrometheusEndpoint endpoint;
  private final ScheduledExecutorService sampler;
  private final JvmGcMetrics gc;
  private final Set<TaskRates> rates = ConcurrentHashMap.newKeySet();
  private boolean nativeMemoryRegistered;

  private ProcessMetrics() {
    this.registry = null;
    this.endpoint = null;
    this.sampler = null;
    this.gc = null;
  }

  private ProcessMetrics(PrometheusMeterRegistry registry, String host, PortRange ports) {
    this.registry = registry;
    new ClassLoaderMetrics().bindTo(registry);
    new JvmMemoryMetrics().bindTo(registry);
    new JvmThreadMetrics().bindTo(registry);
    new ProcessorMetrics().bindTo(registry);
    new UptimeMetrics().bindTo(registry);
    this.gc = new JvmGcMetrics();
    gc.bindTo(registry);
    try {
      this.endpoint = PrometheusEndpoint.start(registry, host, ports);
    } catch (RuntimeException e) {
      gc.close();
      registry.close();
      throw e;
    }
    this.sampler =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "weir-metrics-sampler");
              t.setDaemon(true);
              return t;
            });
    var unused =
        sampler.scheduleAtFixedRate(
            this::sample, SAMPLE_INTERVAL_MILLIS, SAMPLE_INTERVAL_MILLIS, TimeUnit.MILLISECONDS);
    LOG.info("Prometheus endpoint serves the metrics at http://{}:{}/metrics", host, port());
  }

  /**
   * The metrics of a process configured by {@code options}: {@link #DISABLED} without {@code
   * metrics.reporter.prom.port}, else a registry served on {@code metrics.reporter.prom.host} or,
   * unset, on {@code bindHost}.
   *
   * @throws IllegalArgumentException naming the key, for a port setting that cannot be read or
   *     ports that are all in use
   */
  public static ProcessMetrics start(ClusterOptions options, String bindHost) {
    String ports = options.get(MetricOptions.PROMETHEUS_PORT);
    if (ports == null || ports.isBlank()) {
      return DISABLED;
    }
    PortRange range = PortRange.parse(MetricOptions.PROMETHEUS_PORT.key(), ports);
    String host = options.get(MetricOptions.PROMETHEUS_HOST);
    return new ProcessMetrics(
        new PrometheusMeterRegistry(PrometheusConfig.DEFAULT),
        host == null || host.isBlank() ? bindHost : host,
        range);
  }

  /** Whether this process serves metrics. */
  public boolean enabled() {
    return registry != null;
  }

  /** The endpoint's port, or -1 when disabled. */
  public int port() {
    return endpoint == null ? -1 : endpoint.port();
  }

  /** The registry; null when disabled. For tests. */
  MeterRegistry registry() {
    return registry;
  }

  /** The metrics in Prometheus's text format, as the endpoint serves them; "" when disabled. */
  public String scrape() {
    return registry == null ? "" : registry.scrape();
  }

  /** A set of meters, removed together. */
  private final class Registered implements TaskMetricsReporter.Registration {
    private final List<Meter> meters = new ArrayList<>();
    private final TaskRates taskRates;
    private volatile AutoCloseable userMetrics = () -> {};

    Registered(TaskRates taskRates) {
      this.taskRates = taskRates;
    }

    /**
     * Reports a function's metric (a view, such as a {@code MeterView}, as the runtime's {@link
     * io.weir.runtime.metrics.ViewUpdater} updates it).
     */
    synchronized void userMetric(UserMetrics.UserMetric metric, Tags tags) {
      UserMetricGauges.register(metric, tags, this::gauge);
    }

    synchronized void gauge(String name, String description, Tags tags, Supplier<Number> value) {
      // A meter left by an earlier registration of the same subtask or job gives way: the
      // registry would hand it back instead of reading the new one.
      Meter stale = registry.find(name).tags(tags).meter();
      if (stale != null) {
        registry.remove(stale);
      }
      meters.add(Gauge.builder(name, value).description(description).tags(tags).register(registry));
    }

    @Override
    public void close() {
      // Unsubscribed first, outside this object's lock: the subtask's metrics tell this object of
      // a new metric under their own lock.
      try {
        userMetrics.close();
      } catch (Exception e) {
        LOG.debug("Unsubscribing from a subtask's metrics failed", e);
      }
      synchronized (this) {
        if (taskRates != null) {
          rates.remove(taskRates);
        }
        meters.forEach(registry::remove);
      }
    }
  }

  /**
   * Reports the metrics of the job {@code jobId} (Flink's job metrics: {@code
   * weir_jobmanager_job_<name>}, tagged {@code job_id} and {@code job_name}) from {@code metrics},
   * asked at every scrape, until the registration is closed.
   */
  public TaskMetricsReporter.Registration registerJob(
      String jobId, String jobName, Supplier<JobMetrics> metrics) {
    if (registry == null) {
      return () -> {};
    }
    Tags tags = Tags.of("job_id", jobId, "job_name", jobName);
    Registered job = new Registered(null);
    for (String name : JobMetrics.NAMES) {
      job.gauge(
          "weir.jobmanager.job." + name,
          JOB_METRICS.get(name),
          tags,
          () -> metrics.get().asMap().get(name));
    }
    return job;
  }

  /**
   * Reports each subtask a task executor of this process runs (Flink's task metrics: {@code
   * weir_taskmanager_job_task_<name>}, tagged {@code job_id}, {@code job_name}, {@code task_name},
   * {@code subtask_index} and {@code task_attempt_num}) while it runs.
   */
  public TaskMetricsReporter taskReporter() {
    return registry == null ? TaskMetricsReporter.NONE : this::registerTask;
  }

  private TaskMetricsReporter.Registration registerTask(TaskScope scope, TaskIOMetrics task) {
    Tags tags =
        Tags.of(
            "job_id", scope.jobId(),
            "job_name", scope.jobName(),
            "task_name", scope.taskName(),
            "subtask_index", String.valueOf(scope.subtaskIndex()),
            "task_attempt_num", String.valueOf(scope.attemptNumber()));
    TaskRates taskRates = new TaskRates(task);
    Registered registered = new Registered(taskRates);
    String prefix = "weir.taskmanager.job.task.";
    registered.gauge(prefix + "numRecordsIn", "Records the subtask read", tags, task::numRecordsIn);
    registered.gauge(
        prefix + "numRecordsOut",
        "Records the subtask sent to other subtasks",
        tags,
        task::numRecordsOut);
    registered.gauge(
        prefix + "numRecordsInPerSecond",
        "Records read per second, over the last minute",
        tags,
        taskRates.recordsIn::rate);
    registered.gauge(
        prefix + "numRecordsOutPerSecond",
        "Records sent per second, over the last minute",
        tags,
        taskRates.recordsOut::rate);
    registered.gauge(
        prefix + "numBytesIn",
        "Bytes the subtask read from its input channels",
        tags,
        task::numBytesIn);
    registered.gauge(
        prefix + "numBytesOut",
        "Bytes the subtask sent to other subtasks",
        tags,
        task::numBytesOut);
    registered.gauge(
        prefix + "numBytesInPerSecond",
        "Bytes read per second, over the last minute",
        tags,
        taskRates.bytesIn::rate);
    registered.gauge(
        prefix + "numBytesOutPerSecond",
        "Bytes sent per second, over the last minute",
        tags,
        taskRates.bytesOut::rate);
    registered.gauge(
        prefix + "idleTimeMsPerSecond",
        "Milliseconds per second spent waiting for input, over the last 5 s",
        tags,
        taskRates::idleMsPerSecond);
    registered.gauge(
        prefix + "backPressuredTimeMsPerSecond",
        "Milliseconds per second spent waiting for an output to take more, over the last 5 s",
        tags,
        taskRates::backPressuredMsPerSecond);
    registered.gauge(
        prefix + "busyTimeMsPerSecond",
        "Milliseconds per second neither idle nor back-pressured, over the last 5 s",
        tags,
        taskRates::busyMsPerSecond);
    registered.gauge(
        prefix + "checkpointStartDelayNanos",
        "From the latest checkpoint's trigger to its first barrier here, ns (ms precision)",
        tags,
        task::checkpointStartDelayNanos);
    registered.gauge(
        prefix + "checkpointAlignmentTime",
        "The latest checkpoint's alignment here, first to last barrier, ns (ms precision)",
        tags,
        task::checkpointAlignmentNanos);
    registered.gauge(
        prefix + "currentInputWatermark",
        "The watermark of the subtask's inputs together, ms; Long.MIN_VALUE before one or for a"
            + " source",
        tags,
        task::currentInputWatermark);
    registered.gauge(
        prefix + "currentOutputWatermark",
        "The watermark a source subtask emitted last, ms; Long.MIN_VALUE before one or for a"
            + " subtask that is no source",
        tags,
        task::currentOutputWatermark);
    RestoreProgress restore = task.restore();
    if (restore != null) {
      registerRestore(registered, prefix, tags, restore);
    }
    rates.add(taskRates);
    registered.userMetrics =
        task.userMetrics().subscribe(metric -> registered.userMetric(metric, tags));
    return registered;
  }

  /** A restoring subtask's progress: {@code weir_taskmanager_job_task_restore*}. */
  private static void registerRestore(
      Registered registered, String prefix, Tags tags, RestoreProgress restore) {
    registered.gauge(
        prefix + "restoreCheckpointId",
        "The checkpoint the subtask restored from",
        tags,
        () -> restore.sample(System.nanoTime()).checkpointId());
    registered.gauge(
        prefix + "restoredBytes",
        "Bytes of state read and verified so far by the subtask's restore",
        tags,
        () -> restore.sample(System.nanoTime()).bytesRead());
    registered.gauge(
        prefix + "restoreTotalBytes",
        "Bytes of state the subtask's restore reads at most",
        tags,
        () -> restore.sample(System.nanoTime()).bytesTotal());
    registered.gauge(
        prefix + "restoredFiles",
        "State files read and verified so far by the subtask's restore",
        tags,
        () -> restore.sample(System.nanoTime()).filesRead());
    registered.gauge(
        prefix + "restoreTotalFiles",
        "State files the subtask's restore reads at most",
        tags,
        () -> restore.sample(System.nanoTime()).filesTotal());
    registered.gauge(
        prefix + "restoreDurationMs",
        "How long the subtask's restore has taken so far, or took, ms",
        tags,
        () -> restore.sample(System.nanoTime()).durationMillis());
    registered.gauge(
        prefix + "restoreEstimatedTimeLeftMs",
        "The restore's time left at its rate so far, ms: 0 once done, -1 before any byte",
        tags,
        () -> restore.sample(System.nanoTime()).estimatedMillisLeft());
    registered.gauge(
        prefix + "replayedRecords",
        "Records the subtask read so far from the in-flight data of the unaligned checkpoint it"
            + " restored",
        tags,
        () -> restore.sample(System.nanoTime()).recordsReplayed());
  }

  /**
   * Reports the native memory of the state backends found on the class path (RocksDB's block
   * caches: {@code weir_taskmanager_rocksdb_block_cache_usage}, ...); once, by the process that
   * runs tasks.
   */
  public synchronized void registerNativeMemory() {
    if (registry == null || nativeMemoryRegistered) {
      return;
    }
    nativeMemoryRegistered = true;
    for (KeyedStateBackendFactory factory : ServiceLoader.load(KeyedStateBackendFactory.class)) {
      for (Map.Entry<String, LongSupplier> gauge : factory.nativeMemoryGauges().entrySet()) {
        LongSupplier value = gauge.getValue();
        Gauge.builder("weir.taskmanager." + gauge.getKey(), value::getAsLong)
            .description("Native memory of the state backends in this process, bytes")
            .register(registry);
      }
    }
  }

  /** The rates of one subtask, sampled every {@link #SAMPLE_INTERVAL_MILLIS}. */
  private static final class TaskRates {
    final TaskIOMetrics task;
    final RateView recordsIn = new RateView(RECORD_RATE_INTERVALS);
    final RateView recordsOut = new RateView(RECORD_RATE_INTERVALS);
    final RateView bytesIn = new RateView(RECORD_RATE_INTERVALS);
    final RateView bytesOut = new RateView(RECORD_RATE_INTERVALS);

    /** Over one interval, as Flink's time gauges are. */
    final RateView idle = new RateView(1);

    final RateView backPressured = new RateView(1);

    TaskRates(TaskIOMetrics task) {
      this.task = task;
      sample(System.nanoTime());
    }

    void sample(long now) {
      recordsIn.update(task.numRecordsIn(), now);
      recordsOut.update(task.numRecordsOut(), now);
      bytesIn.update(task.numBytesIn(), now);
      bytesOut.update(task.numBytesOut(), now);
      idle.update(task.idleTime().totalNanos(now), now);
      backPressured.update(task.backPressuredTime().totalNanos(now), now);
    }

    double idleMsPerSecond() {
      return msPerSecond(idle);
    }

    double backPressuredMsPerSecond() {
      return msPerSecond(backPressured);
    }

    /**
     * The rest of each second: neither idle nor back-pressured (Flink's busy time); NaN until the
     * first interval was sampled.
     */
    double busyMsPerSecond() {
      if (!idle.measured()) {
        return Double.NaN;
      }
      return Math.max(0, 1000 - idleMsPerSecond() - backPressuredMsPerSecond());
    }

    private static double msPerSecond(RateView nanosPerSecond) {
      return Math.min(1000, Math.max(0, nanosPerSecond.rate() / 1e6));
    }
  }

  private void sample() {
    long now = System.nanoTime();
    for (TaskRates task : rates) {
      try {
        task.sample(now);
      } catch (RuntimeException e) {
        LOG.debug("Sampling the rates of a subtask failed", e);
      }
    }
  }

  /** Samples every subtask's rates now; for tests, which do not wait for the interval. */
  void sampleNow() {
    sample();
  }

  @Override
  public void close() {
    if (registry == null) {
      return;
    }
    sampler.shutdownNow();
    endpoint.close();
    gc.close();
    registry.close();
  }
}

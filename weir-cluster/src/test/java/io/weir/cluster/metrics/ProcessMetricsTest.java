package io.weir.cluster.metrics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.weir.api.functions.TaskInfo;
import io.weir.api.metrics.Counter;
import io.weir.api.metrics.DescriptiveStatisticsHistogram;
import io.weir.api.metrics.Histogram;
import io.weir.api.metrics.MeterView;
import io.weir.api.metrics.MetricGroup;
import io.weir.api.metrics.SimpleCounter;
import io.weir.cluster.ClusterOptions;
import io.weir.runtime.metrics.JobMetrics;
import io.weir.runtime.metrics.OperatorMetrics;
import io.weir.runtime.metrics.RestoreProgress;
import io.weir.runtime.metrics.TaskIOMetrics;
import io.weir.runtime.metrics.TaskMetricsReporter;
import io.weir.runtime.metrics.TaskScope;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A process's metrics as Prometheus reads them: the endpoint's port and address, the JVM's metrics,
 * a job's and a subtask's gauges with Flink's names and tags, registered and removed.
 */
class ProcessMetricsTest {

  private final List<ProcessMetrics> started = new ArrayList<>();
  private final HttpClient http = HttpClient.newHttpClient();

  @AfterEach
  void close() {
    started.forEach(ProcessMetrics::close);
  }

  private ProcessMetrics start(Map<String, String> settings) {
    ProcessMetrics metrics = ProcessMetrics.start(ClusterOptions.of(settings), "127.0.0.1");
    started.add(metrics);
    return metrics;
  }

  private HttpResponse<String> get(ProcessMetrics metrics, String method) throws Exception {
    return http.send(
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + metrics.port() + "/metrics"))
            .method(method, HttpRequest.BodyPublishers.noBody())
            .build(),
        HttpResponse.BodyHandlers.ofString());
  }

  private String scrape(ProcessMetrics metrics) throws Exception {
    HttpResponse<String> response = get(metrics, "GET");
    assertThat(response.statusCode()).isEqualTo(200);
    assertThat(response.headers().firstValue("Content-Type"))
        .hasValue(PrometheusEndpoint.CONTENT_TYPE);
    return response.body();
  }

  @Test
  void withoutAPortThereIsNoEndpointAndNothingIsKept() {
    ProcessMetrics metrics = start(Map.of());

    assertThat(metrics.enabled()).isFalse();
    assertThat(metrics.port()).isEqualTo(-1);
    assertThat(metrics.taskReporter()).isSameAs(TaskMetricsReporter.NONE);
    metrics.registerJob("j", "n", () -> new JobMetrics(0, 0, 0, 0, 0, 0, 0, 0, 0)).close();
    assertThat(metrics.scrape()).isEmpty();
  }

  @Test
  void servesTheJvmsMetricsOnLoopbackInPrometheussTextFormat() throws Exception {
    ProcessMetrics metrics = start(Map.of(MetricOptions.PROMETHEUS_PORT.key(), "0"));

    assertThat(metrics.port()).isPositive();
    assertThat(scrape(metrics))
        .contains("jvm_memory_used_bytes{")
        .contains("jvm_gc_")
        .contains("jvm_threads_live_threads")
        .contains("process_uptime_seconds");
    assertThat(get(metrics, "POST").statusCode()).isEqualTo(405);
  }

  @Test
  void takesTheFirstFreePortOfItsRangeAsFlinksReporterDoes() throws Exception {
    try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getByName("127.0.0.1"))) {
      int first = taken.getLocalPort();
      // Two free ports after the one taken, as far as one can tell: the test picks its range so.
      String range = first + "," + freePort() + "," + freePort();
      ProcessMetrics a = start(Map.of(MetricOptions.PROMETHEUS_PORT.key(), range));
      ProcessMetrics b = start(Map.of(MetricOptions.PROMETHEUS_PORT.key(), range));

      assertThat(a.port()).isNotEqualTo(first);
      assertThat(b.port()).isNotEqualTo(first).isNotEqualTo(a.port());
      assertThat(scrape(a)).contains("jvm_");
      assertThat(scrape(b)).contains("jvm_");

      assertThatThrownBy(() -> start(Map.of(MetricOptions.PROMETHEUS_PORT.key(), range)))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("Cannot open the Prometheus endpoint on 127.0.0.1")
          .hasMessageContaining(range)
          .hasMessageContaining("metrics.reporter.prom.port");
    }
  }

  private static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getByName("127.0.0.1"))) {
      return s.getLocalPort();
    }
  }

  @Test
  void aJobsMetricsAreGaugesWithFlinksNamesTaggedWithTheJobUntilUnregistered() throws Exception {
    ProcessMetrics metrics = start(Map.of(MetricOptions.PROMETHEUS_PORT.key(), "0"));
    AtomicLong restarts = new AtomicLong(1);

    TaskMetricsReporter.Registration job =
        metrics.registerJob(
            "0123abcd",
            "keyed count",
            () -> new JobMetrics(120, 2048, 4096, 7, 1, 0, 1_700_000_000_000L, restarts.get(), 5));
    String tags = "{job_id=\"0123abcd\",job_name=\"keyed count\"}";
    assertThat(scrape(metrics))
        .contains("weir_jobmanager_job_lastCheckpointDuration" + tags + " 120")
        .contains("weir_jobmanager_job_lastCheckpointSize" + tags + " 2048")
        .contains("weir_jobmanager_job_lastCheckpointFullSize" + tags + " 4096")
        .contains("weir_jobmanager_job_numberOfCompletedCheckpoints" + tags + " 7")
        .contains("weir_jobmanager_job_numberOfFailedCheckpoints" + tags + " 1")
        .contains("weir_jobmanager_job_numberOfInProgressCheckpoints" + tags + " 0")
        .contains("weir_jobmanager_job_lastCheckpointRestoreTimestamp" + tags + " 1.7E12")
        .contains("weir_jobmanager_job_numRestarts" + tags + " 1")
        .contains("weir_jobmanager_job_uptime" + tags + " 5");

    restarts.set(2);
    assertThat(scrape(metrics)).as("read at every scrape").contains("numRestarts" + tags + " 2");

    job.close();
    assertThat(scrape(metrics)).doesNotContain("weir_jobmanager_job_");
  }

  @Test
  void aSubtasksMetricsAreRatesAndGaugesFromItsCountersTaggedWithTheSubtask() throws Exception {
    ProcessMetrics metrics = start(Map.of(MetricOptions.PROMETHEUS_PORT.key(), "0"));
    AtomicLong in = new AtomicLong();
    AtomicLong out = new AtomicLong();
    AtomicLong bytesIn = new AtomicLong();
    AtomicLong bytesOut = new AtomicLong();
    TaskIOMetrics task = new TaskIOMetrics(in::get, out::get, bytesIn::get, bytesOut::get);
    TaskMetricsReporter.Registration registration =
        metrics
            .taskReporter()
            .register(new TaskScope("0123abcd", "keyed count", "Map -> Sink", 1, 3), task);
    String tags =
        "{job_id=\"0123abcd\",job_name=\"keyed count\",subtask_index=\"1\",task_attempt_num=\"3\","
            + "task_name=\"Map -> Sink\"}";

    assertThat(gauge(scrape(metrics), "busyTimeMsPerSecond", tags))
        .as("not measured before the first interval")
        .isNaN();
    assertThat(scrape(metrics))
        .contains("# HELP weir_taskmanager_job_task_idleTimeMsPerSecond Milliseconds per second");

    in.set(5_000);
    out.set(2_500);
    bytesIn.set(60_000);
    bytesOut.set(20_000);
    task.checkpointTaken(12, 3);
    long now = System.nanoTime();
    task.idleTime().markStart(now);
    // A little later by the sampler's clock: the rates are per second of it.
    waitNanos(now, 1_000_000);
    metrics.sampleNow();

    String scraped = scrape(metrics);
    assertThat(scraped)
        .contains("weir_taskmanager_job_task_numRecordsIn" + tags + " 5000")
        .contains("weir_taskmanager_job_task_numRecordsOut" + tags + " 2500")
        .contains("weir_taskmanager_job_task_numBytesIn" + tags + " 60000")
        .contains("weir_taskmanager_job_task_numBytesOut" + tags + " 20000")
        .contains("weir_taskmanager_job_task_checkpointStartDelayNanos" + tags + " 1.2E7")
        .contains("weir_taskmanager_job_task_checkpointAlignmentTime" + tags + " 3000000")
        .contains("weir_taskmanager_job_task_backPressuredTimeMsPerSecond" + tags + " 0");
    assertThat(gauge(scraped, "numRecordsInPerSecond", tags)).isPositive();
    assertThat(gauge(scraped, "numRecordsOutPerSecond", tags))
        .isCloseTo(
            gauge(scraped, "numRecordsInPerSecond", tags) / 2,
            org.assertj.core.data.Offset.offset(1e-6));
    assertThat(gauge(scraped, "numBytesInPerSecond", tags))
        .as("as many bytes a second as records, times the bytes per record")
        .isCloseTo(
            gauge(scraped, "numRecordsInPerSecond", tags) * 12,
            org.assertj.core.data.Percentage.withPercentage(1e-6));
    assertThat(gauge(scraped, "numBytesOutPerSecond", tags))
        .isCloseTo(
            gauge(scraped, "numRecordsOutPerSecond", tags) * 8,
            org.assertj.core.data.Percentage.withPercentage(1e-6));
    assertThat(gauge(scraped, "idleTimeMsPerSecond", tags))
        .as("idle since the registration, nearly")
        .isBetween(0.0, 1000.0)
        .isPositive();
    assertThat(
            gauge(scraped, "idleTimeMsPerSecond", tags)
                + gauge(scraped, "busyTimeMsPerSecond", tags))
        .isCloseTo(1000, org.assertj.core.data.Offset.offset(1e-6));

    registration.close();
    assertThat(scrape(metrics)).doesNotContain("weir_taskmanager_job_task_");
  }

  @Test
  void aRestoringSubtaskReportsHowFarItsRestoreHasComeAndOnlyItDoes() throws Exception {
    ProcessMetrics metrics = start(Map.of(MetricOptions.PROMETHEUS_PORT.key(), "0"));
    TaskIOMetrics fresh = new TaskIOMetrics(() -> 0, () -> 0, () -> 0, () -> 0);
    TaskIOMetrics restoring = new TaskIOMetrics(() -> 0, () -> 0, () -> 0, () -> 0);
    RestoreProgress progress = new RestoreProgress(7, 4_000, 3);
    restoring.restoring(progress);
    metrics.taskReporter().register(new TaskScope("j", "job", "Source", 0, 0), fresh);
    metrics.taskReporter().register(new TaskScope("j", "job", "Count", 0, 1), restoring);
    String tags =
        "{job_id=\"j\",job_name=\"job\",subtask_index=\"0\",task_attempt_num=\"1\","
            + "task_name=\"Count\"}";
    progress.begin();
    progress.read(1_000, true);
    // A little later: the restore has a rate, and from it a time left.
    waitNanos(System.nanoTime(), 2_000_000);

    String scraped = scrape(metrics);
    assertThat(scraped)
        .contains("weir_taskmanager_job_task_restoreCheckpointId" + tags + " 7")
        .contains("weir_taskmanager_job_task_restoredBytes" + tags + " 1000")
        .contains("weir_taskmanager_job_task_restoreTotalBytes" + tags + " 4000")
        .contains("weir_taskmanager_job_task_restoredFiles" + tags + " 1")
        .contains("weir_taskmanager_job_task_restoreTotalFiles" + tags + " 3");
    assertThat(scraped.lines().filter(line -> line.startsWith("weir_taskmanager_job_task_restor")))
        .as("a subtask that started without state has no restore to report")
        .hasSize(7)
        .noneMatch(line -> line.contains("task_name=\"Source\""));
    assertThat(gauge(scraped, "restoreDurationMs", tags)).isPositive();
    assertThat(gauge(scraped, "restoreEstimatedTimeLeftMs", tags))
        .as("bytes are left, and it has a rate to go by")
        .isPositive();

    progress.read(3_000, true);
    restoring.initialized();
    // Once running, the subtask reads the in-flight data it restored.
    progress.replayed(40);
    progress.replayed(2);
    scraped = scrape(metrics);
    assertThat(scraped)
        .contains("weir_taskmanager_job_task_restoredBytes" + tags + " 4000")
        .contains("weir_taskmanager_job_task_restoreEstimatedTimeLeftMs" + tags + " 0")
        .contains("weir_taskmanager_job_task_replayedRecords" + tags + " 42");
  }

  @Test
  void aFunctionsMetricsAreReportedWithFlinksNamesAndLabelsUntilItsSubtaskEnds() throws Exception {
    ProcessMetrics metrics = start(Map.of(MetricOptions.PROMETHEUS_PORT.key(), "0"));
    TaskIOMetrics task = new TaskIOMetrics(() -> 0, () -> 0, () -> 0, () -> 0);
    TaskInfo info = new TaskInfo("Count -> Sink", 1, 2, 128, 3);
    MetricGroup group = OperatorMetrics.of(task.userMetrics(), "job", info, "Count", "op-7");
    // One metric registered before the subtask is reported, the others after.
    Counter counted = group.counter("counted");
    TaskMetricsReporter.Registration registration =
        metrics
            .taskReporter()
            .register(new TaskScope("0123abcd", "job", "Count -> Sink", 1, 3), task);
    MetricGroup shard = group.addGroup("Shards").addGroup("shard", "east");
    shard.gauge("lag", () -> 42L);
    group.gauge("healthy", () -> true);
    group.gauge("mood", () -> "fine");
    MeterView rate = group.meter("perSecond", new MeterView(new SimpleCounter(), 5));
    Histogram sizes = group.histogram("sizes", new DescriptiveStatisticsHistogram(100));
    counted.inc(5);
    rate.markEvent(50);
    for (long v = 1; v <= 100; v++) {
      sizes.update(v);
    }
    Counter twice = group.counter("counted", new SimpleCounter());
    twice.inc(1000);
    rate.update(); // as the process's view updater does every 5 s: 50 events in its 5 s

    String operator =
        "{job_id=\"0123abcd\",job_name=\"job\",operator_id=\"op-7\",operator_name=\"Count\","
            + "subtask_index=\"1\",task_attempt_num=\"3\",task_name=\"Count -> Sink\"}";
    String shardOperator = operator.replace("subtask_index", "shard=\"east\",subtask_index");
    String scraped = scrape(metrics);
    assertThat(gauge(scraped, "operator_counted", operator))
        .as("the first registration of a name is reported, not the second")
        .isEqualTo(5);
    assertThat(gauge(scraped, "operator_Shards_shard_lag", shardOperator)).isEqualTo(42);
    assertThat(gauge(scraped, "operator_healthy", operator)).isEqualTo(1);
    assertThat(gauge(scraped, "operator_mood", operator)).as("no number").isNaN();
    assertThat(gauge(scraped, "operator_perSecond", operator)).as("50 in 5 s").isEqualTo(10);
    assertThat(gauge(scraped, "operator_sizes_count", operator)).isEqualTo(100);
    assertThat(
            gauge(
                scraped,
                "operator_sizes",
                operator.replace("subtask_index", "quantile=\"0.5\",subtask_index")))
        .isCloseTo(50.5, org.assertj.core.data.Offset.offset(1e-9));
    assertThat(
            gauge(
                scraped,
                "operator_sizes",
                operator.replace("subtask_index", "quantile=\"0.99\",subtask_index")))
        .isCloseTo(99.01, org.assertj.core.data.Offset.offset(1e-9));

    registration.close();
    assertThat(scrape(metrics)).doesNotContain("weir_taskmanager_job_task_operator_");
  }

  /** Spins until {@code nanos} passed since {@code from}: a clock the test reads, not a sleep. */
  private static void waitNanos(long from, long nanos) {
    while (System.nanoTime() - from < nanos) {
      Thread.onSpinWait();
    }
  }

  private static double gauge(String scraped, String name, String tags) {
    String prefix = "weir_taskmanager_job_task_" + name + tags + " ";
    for (String line : scraped.split("\n")) {
      if (line.startsWith(prefix)) {
        return Double.parseDouble(line.substring(prefix.length()).strip());
      }
    }
    throw new AssertionError("no " + prefix + " in\n" + scraped);
  }

  @Test
  void aTaskManagersProcessReportsTheNativeMemoryOfRocksDbsBlockCaches() throws Exception {
    ProcessMetrics metrics = start(Map.of(MetricOptions.PROMETHEUS_PORT.key(), "0"));

    metrics.registerNativeMemory();
    metrics.registerNativeMemory();

    assertThat(scrape(metrics))
        .contains("weir_taskmanager_rocksdb_block_cache_usage ")
        .contains("weir_taskmanager_rocksdb_block_cache_pinned_usage ")
        .contains("weir_taskmanager_rocksdb_block_cache_capacity ");
  }
}

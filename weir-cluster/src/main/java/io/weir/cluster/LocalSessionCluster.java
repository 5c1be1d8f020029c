package io.weir.cluster;

import io.weir.cluster.jobmanager.JobManager;
import io.weir.cluster.metrics.MetricOptions;
import io.weir.cluster.metrics.ProcessMetrics;
import io.weir.cluster.taskmanager.TaskManager;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The local session cluster: a JobManager and one TaskManager in this JVM, on 127.0.0.1, for {@code
 * weir run} without {@code --jobmanager}: the job runs in the command's own process, as on Flink's
 * local executor, and the JobManager's REST API is served while it runs, so that {@code weir list},
 * {@code cancel}, {@code savepoint} and {@code stop} work against it.
 */
public final class LocalSessionCluster implements AutoCloseable {

  /** Slots of its TaskManager: one attempt of any job fits. */
  private static final int SLOTS = 1024;

  private final JobManager jobManager;
  private final TaskManager taskManager;

  /** One registry and endpoint for both roles: the process's metrics. */
  private final ProcessMetrics metrics;

  /**
   * Starts both; {@code settings} may set {@code rest.port} (default: any free port), {@code
   * metrics.reporter.prom.port} (one Prometheus endpoint for both) and any other cluster setting.
   */
  public LocalSessionCluster(Map<String, String> settings)
      throws IOException, InterruptedException {
    Map<String, String> values = new LinkedHashMap<>();
    values.put(ClusterOptions.JM_PORT.key(), "0");
    values.put(ClusterOptions.REST_PORT.key(), "0");
    values.put(ClusterOptions.SLOTS.key(), String.valueOf(SLOTS));
    values.putAll(settings);
    ClusterOptions options = ClusterOptions.of(values);
    this.metrics = ProcessMetrics.start(options, options.get(ClusterOptions.JM_BIND_HOST));
    try {
      this.jobManager = new JobManager(options, metrics);
    } catch (IOException | InterruptedException | RuntimeException e) {
      metrics.close();
      throw e;
    }
    try {
      this.taskManager =
          new TaskManager(
              options,
              "127.0.0.1",
              jobManager.rpcPort(),
              reason -> {
                throw new IllegalStateException(reason);
              },
              metrics);
    } catch (IOException | RuntimeException e) {
      jobManager.close();
      metrics.close();
      throw e;
    }
  }

  /**
   * Of the settings a {@code weir run} was given, those that configure this cluster rather than the
   * job: its reporters' ({@code metrics.*}: the Prometheus endpoint; {@code traces.*}: the
   * checkpoint spans), which a JobManager and a TaskManager read from their own configuration,
   * never from a job's.
   */
  public static Map<String, String> settingsOfItsOwn(Map<String, String> given) {
    Map<String, String> own = new LinkedHashMap<>();
    given.forEach(
        (key, value) -> {
          if (MetricOptions.isReporterKey(key)) {
            own.put(key, value);
          }
        });
    return own;
  }

  /** The Prometheus endpoint's port, or -1 without {@code metrics.reporter.prom.port}. */
  public int metricsPort() {
    return metrics.port();
  }

  /** The addresses its JobManager's and TaskManager's ports are bound to, by what each serves. */
  Map<String, InetSocketAddress> boundAddresses() {
    Map<String, InetSocketAddress> bound = new LinkedHashMap<>();
    bound.put("JobManager REST", jobManager.restAddress());
    bound.put("JobManager control", jobManager.rpcAddress());
    bound.put("TaskManager control", taskManager.rpcAddress());
    bound.put("TaskManager data", taskManager.dataAddress());
    return bound;
  }

  /** The REST port the commands reach its JobManager at. */
  public int restPort() {
    return jobManager.restPort();
  }

  /**
   * Waits, once the job has ended, until the outcome of every savepoint and stop triggered for it
   * has been sent to the client that polls for it ({@code weir stop} asks for the savepoint's
   * location after the stop has ended the job), or until {@code patience} has passed for a client
   * that never asks; returns whether every outcome was sent.
   */
  public boolean awaitSavepointOutcomesSent(String jobId, Duration patience)
      throws InterruptedException {
    try {
      jobManager.savepointOutcomesSent(jobId).get(patience.toMillis(), TimeUnit.MILLISECONDS);
      return true;
    } catch (TimeoutException e) {
      return false;
    } catch (ExecutionException e) {
      throw new IllegalStateException(e.getCause());
    }
  }

  @Override
  public void close() throws InterruptedException {
    try {
      taskManager.close();
    } finally {
      try {
        jobManager.close();
      } finally {
        metrics.close();
      }
    }
  }
}

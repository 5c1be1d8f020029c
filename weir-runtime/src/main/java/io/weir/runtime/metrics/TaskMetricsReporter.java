package io.weir.runtime.metrics;

/**
 * Where a task executor reports the metrics of the subtasks it runs (in a TaskManager: its
 * Prometheus registry). A subtask is registered before its thread starts and unregistered when it
 * ended. Any thread.
 */
@FunctionalInterface
public interface TaskMetricsReporter {

  /** Reports nothing: local execution, and processes without a metrics endpoint. */
  TaskMetricsReporter NONE = (scope, metrics) -> () -> {};

  /** Reports {@code metrics} of the subtask {@code scope} until the registration is closed. */
  Registration register(TaskScope scope, TaskIOMetrics metrics);

  /** One subtask's metrics, reported until closed. */
  @FunctionalInterface
  interface Registration extends AutoCloseable {
    @Override
    void close();
  }
}

package io.weir.api.source;

import io.weir.api.metrics.OperatorMetricGroup;
import io.weir.api.metrics.UnregisteredMetricsGroup;

/**
 * What a source reader knows of where it runs.
 *
 * @param subtaskIndex 0-based index of this reader's subtask
 * @param parallelism number of parallel readers
 * @param attemptNumber 0 for the first run, incremented on every restart
 * @param metricGroup where the reader registers its metrics, as Flink's {@code
 *     SourceReaderContext.metricGroup()}: the source operator's group, reported as the other
 *     operators' metrics are
 */
public record SourceReaderContext(
    int subtaskIndex, int parallelism, int attemptNumber, OperatorMetricGroup metricGroup) {

  /** A context whose metrics nobody reports: a reader created outside a job (a unit test). */
  public SourceReaderContext(int subtaskIndex, int parallelism, int attemptNumber) {
    this(subtaskIndex, parallelism, attemptNumber, new UnregisteredMetricsGroup());
  }

  /** {@link #subtaskIndex()}, by the name Flink's {@code SourceReaderContext} gives it. */
  public int getIndexOfSubtask() {
    return subtaskIndex;
  }

  /** {@link #parallelism()}, by the name Flink's {@code SourceReaderContext} gives it. */
  public int currentParallelism() {
    return parallelism;
  }
}

package io.weir.api;

import java.time.Duration;
import java.util.Map;

/**
 * What a finished job reports.
 *
 * @param jobId the job
 * @param netRuntime wall time from submission to the end
 * @param metrics counters per operator, e.g. {@code "Map.numRecordsIn" -> 1000}
 */
public record JobExecutionResult(JobID jobId, Duration netRuntime, Map<String, Long> metrics) {

  public JobExecutionResult {
    metrics = Map.copyOf(metrics);
  }

  public JobID getJobID() {
    return jobId;
  }

  /** Flink's accessor: the runtime in milliseconds. */
  public long getNetRuntime() {
    return netRuntime.toMillis();
  }
}

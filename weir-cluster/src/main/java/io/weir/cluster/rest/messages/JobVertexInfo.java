package io.weir.cluster.rest.messages;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.List;
import java.util.Map;

/**
 * The vertices of a job as Flink's REST API shows them: one vertex in {@code GET /jobs/:jobid}
 * ({@link Summary}), one vertex's subtasks in {@code GET /jobs/:jobid/vertices/:vertexid} ({@link
 * Details}), and its back-pressure in {@code .../backpressure} ({@link BackPressure}).
 */
public final class JobVertexInfo {

  private JobVertexInfo() {}

  /**
   * Flink's {@code IOMetricsInfo}: a subtask's counters, or a vertex's summed over its subtasks. A
   * {@code -complete} flag is false when some subtask's counter is missing (its TaskManager did not
   * answer).
   *
   * @param readBytes bytes of serialized records read from input channels (0 for a source)
   * @param writeBytes bytes of serialized records sent to other subtasks, once per channel
   * @param accumulatedBackpressuredTime time waiting for an output to take more, ms
   * @param accumulatedIdleTime time waiting for input, ms
   * @param accumulatedBusyTime the rest of the time, ms
   */
  public record IoMetrics(
      @JsonProperty("read-bytes") long readBytes,
      @JsonProperty("read-bytes-complete") boolean readBytesComplete,
      @JsonProperty("write-bytes") long writeBytes,
      @JsonProperty("write-bytes-complete") boolean writeBytesComplete,
      @JsonProperty("read-records") long readRecords,
      @JsonProperty("read-records-complete") boolean readRecordsComplete,
      @JsonProperty("write-records") long writeRecords,
      @JsonProperty("write-records-complete") boolean writeRecordsComplete,
      @JsonProperty("accumulated-backpressured-time") long accumulatedBackpressuredTime,
      @JsonProperty("accumulated-idle-time") long accumulatedIdleTime,
      @JsonProperty("accumulated-busy-time") long accumulatedBusyTime) {}

  /**
   * One vertex of {@code GET /jobs/:jobid} (Flink's {@code JobVertexDetailsInfo}).
   *
   * @param id the vertex's index, as {@code GET /jobs/:jobid/plan} names it
   * @param status the subtasks' states aggregated as Flink does
   * @param startTime the earliest start of its subtasks, or -1
   * @param endTime the latest end once every subtask ended, else -1
   * @param tasks its subtasks per state, every one of Flink's states present
   */
  public record Summary(
      String id,
      String name,
      int maxParallelism,
      int parallelism,
      String status,
      @JsonProperty("start-time") long startTime,
      @JsonProperty("end-time") long endTime,
      long duration,
      Map<String, Integer> tasks,
      IoMetrics metrics) {}

  /**
   * {@code GET /jobs/:jobid/vertices/:vertexid} (Flink's {@code JobVertexDetailsInfo}).
   *
   * @param now the JobManager's clock when it answered
   */
  public record Details(
      String id,
      String name,
      int maxParallelism,
      int parallelism,
      long now,
      List<Subtask> subtasks) {}

  /**
   * One subtask (Flink's {@code SubtaskExecutionAttemptDetailsInfo}).
   *
   * @param attempt the job's attempt it belongs to
   * @param host the TaskManager that runs it, {@code host:port}; {@code "-"} when not known
   * @param endpoint the same
   * @param taskmanagerId that TaskManager's id
   * @param endTime when it ended, or -1
   * @param duration from its start to its end, or to now
   * @param restore how far its restore from a checkpoint has come (not in Flink's message); absent
   *     when it started without state
   */
  public record Subtask(
      int subtask,
      String status,
      int attempt,
      String host,
      String endpoint,
      @JsonProperty("taskmanager-id") String taskmanagerId,
      @JsonProperty("start-time") long startTime,
      @JsonProperty("end-time") long endTime,
      long duration,
      IoMetrics metrics,
      @JsonInclude(JsonInclude.Include.NON_NULL) JobRecovery.Progress restore) {}

  /**
   * {@code GET /jobs/:jobid/vertices/:vertexid/backpressure} (Flink's {@code
   * JobVertexBackPressureInfo}).
   *
   * @param status always {@code "ok"}: the figures are sampled on demand
   * @param backpressureLevel the level of the most back-pressured subtask
   * @param endTimestamp when the sample was taken
   */
  public record BackPressure(
      String status,
      @JsonProperty("backpressure-level") String backpressureLevel,
      @JsonProperty("end-timestamp") long endTimestamp,
      List<SubtaskBackPressure> subtasks) {}

  /**
   * One subtask's back-pressure; the ratios are shares of its recent time (about the last 5 s),
   * absent when its TaskManager did not answer.
   *
   * @param ratio share of the time it waited for an output to take more
   * @param idleRatio share of the time it waited for input
   * @param busyRatio the rest
   */
  public record SubtaskBackPressure(
      int subtask,
      @JsonProperty("attempt-number") int attemptNumber,
      @JsonProperty("backpressure-level") String backpressureLevel,
      @JsonInclude(JsonInclude.Include.NON_NULL) Double ratio,
      @JsonInclude(JsonInclude.Include.NON_NULL) Double idleRatio,
      @JsonInclude(JsonInclude.Include.NON_NULL) Double busyRatio) {}

  /** Flink's back-pressure levels of a back-pressured share of time. */
  public enum BackPressureLevel {
    /** At most 10 % of the time back-pressured. */
    OK,
    /** Over 10 %, at most 50 %. */
    LOW,
    /** Over 50 %. */
    HIGH;

    /** The level of {@code ratio}, as Flink's {@code JobVertexBackPressureHandler} decides it. */
    public static BackPressureLevel of(double ratio) {
      if (ratio <= 0.10) {
        return OK;
      }
      return ratio <= 0.5 ? LOW : HIGH;
    }

    /** As Flink writes it: {@code ok}, {@code low}, {@code high}. */
    public String json() {
      return name().toLowerCase(java.util.Locale.ROOT);
    }
  }
}

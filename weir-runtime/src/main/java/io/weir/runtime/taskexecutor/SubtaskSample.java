package io.weir.runtime.taskexecutor;

import io.weir.runtime.metrics.MetricDump;
import io.weir.runtime.metrics.RestoreProgress;
import io.weir.runtime.metrics.TaskIOMetrics;
import io.weir.runtime.task.TaskState;
import java.util.Map;

/**
 * One running subtask's counters as its task executor read them at one moment: what the REST API
 * shows of a vertex's subtasks (records and bytes in and out, time idle, back-pressured and busy).
 * The times are totals since the subtask was deployed, on the task executor's own clock, so the job
 * master takes shares over a window from two samples of the same subtask (see {@code
 * RecentTimeShares}).
 *
 * @param id the subtask's attempt
 * @param state its state when sampled (CREATED or RUNNING: an ended subtask is reported as such)
 * @param startTimeMillis when it was deployed, epoch milliseconds on the task executor's clock
 * @param recordsIn records it read
 * @param recordsOut records it sent to other subtasks
 * @param bytesIn bytes it read from its input channels
 * @param bytesOut bytes it sent to other subtasks
 * @param ageNanos from its deployment to the sample
 * @param idleNanos of {@code ageNanos}, waiting for input
 * @param backPressuredNanos of {@code ageNanos}, waiting for an output to take more
 * @param taskManagerId the TaskManager that runs it ({@code "local"} in one process)
 * @param endpoint where that TaskManager is reached, {@code host:port}
 * @param initialized whether it has its state and opened its operators (Flink's INITIALIZING ends)
 * @param restore how far its restore from a checkpoint has come; null when it started without state
 * @param inputWatermark its inputs' watermark, {@link Long#MIN_VALUE} before one (and for a source)
 * @param outputWatermark a source's emitted watermark, {@link Long#MIN_VALUE} before one (and for a
 *     subtask that is no source)
 * @param operatorMetrics its functions' metrics, by their names in Flink's REST API, as text (see
 *     {@link MetricDump})
 */
public record SubtaskSample(
    ExecutionAttemptId id,
    TaskState state,
    long startTimeMillis,
    long recordsIn,
    long recordsOut,
    long bytesIn,
    long bytesOut,
    long ageNanos,
    long idleNanos,
    long backPressuredNanos,
    String taskManagerId,
    String endpoint,
    boolean initialized,
    RestoreProgress.Sample restore,
    long inputWatermark,
    long outputWatermark,
    Map<String, String> operatorMetrics) {

  public SubtaskSample {
    operatorMetrics = Map.copyOf(operatorMetrics);
  }

  /** The counters of {@code metrics} now, in this process. */
  public static SubtaskSample of(ExecutionAttemptId id, TaskState state, TaskIOMetrics metrics) {
    long now = System.nanoTime();
    RestoreProgress restore = metrics.restore();
    return new SubtaskSample(
        id,
        state,
        metrics.createdAtMillis(),
        metrics.numRecordsIn(),
        metrics.numRecordsOut(),
        metrics.numBytesIn(),
        metrics.numBytesOut(),
        metrics.ageNanos(now),
        metrics.idleTime().totalNanos(now),
        metrics.backPressuredTime().totalNanos(now),
        "local",
        "localhost",
        metrics.isInitialized(),
        restore == null ? null : restore.sample(now),
        metrics.currentInputWatermark(),
        metrics.currentOutputWatermark(),
        MetricDump.of(metrics.userMetrics().all()));
  }

  /** This sample, of a subtask on the TaskManager {@code taskManagerId} at {@code endpoint}. */
  public SubtaskSample at(String taskManagerId, String endpoint) {
    return new SubtaskSample(
        id,
        state,
        startTimeMillis,
        recordsIn,
        recordsOut,
        bytesIn,
        bytesOut,
        ageNanos,
        idleNanos,
        backPressuredNanos,
        taskManagerId,
        endpoint,
        initialized,
        restore,
        inputWatermark,
        outputWatermark,
        operatorMetrics);
  }
}

package io.weir.runtime.jobmaster;

import io.weir.runtime.metrics.RestoreProgress;
import java.util.Map;

/**
 * One subtask of a job's current attempt as the REST API shows it (Flink's subtask execution
 * attempt): its state as the job master knows it and the counters its task executor reported.
 *
 * @param vertex the vertex's index
 * @param subtask the subtask's index
 * @param attempt the job's attempt it belongs to
 * @param status Flink's {@code ExecutionState} name: SCHEDULED, DEPLOYING, INITIALIZING (restoring
 *     its state, opening its operators), RUNNING, CANCELING, FINISHED, CANCELED, FAILED or
 *     RECONCILING
 * @param startTimeMillis when it was deployed, epoch milliseconds
 * @param endTimeMillis when it ended, or -1 while it runs
 * @param taskManagerId the TaskManager that runs it, or {@code "-"} when not known
 * @param endpoint where that TaskManager is reached, or {@code "-"}
 * @param io its counters; null when its TaskManager did not answer in time
 * @param restore how far its restore from a checkpoint has come, as its TaskManager reported it;
 *     null when it started without state, has ended, or its TaskManager did not answer
 */
public record SubtaskStatus(
    int vertex,
    int subtask,
    int attempt,
    String status,
    long startTimeMillis,
    long endTimeMillis,
    String taskManagerId,
    String endpoint,
    Io io,
    RestoreProgress.Sample restore) {

  /**
   * A subtask's counters.
   *
   * @param recordsIn records it read
   * @param recordsOut records it sent to other subtasks
   * @param bytesIn bytes it read from its input channels
   * @param bytesOut bytes it sent to other subtasks
   * @param idleMillis time it waited for input, in total
   * @param backPressuredMillis time it waited for an output to take more, in total
   * @param busyMillis the rest of its time
   * @param idleRatio share of its recent time idle, 0 to 1 (NaN: not known)
   * @param backPressuredRatio share of its recent time back-pressured
   * @param busyRatio share of its recent time busy
   * @param recordsInPerSecond its recent rate of records read (NaN: not known)
   * @param recordsOutPerSecond its recent rate of records sent to other subtasks
   * @param bytesInPerSecond its recent rate of bytes read from its input channels
   * @param bytesOutPerSecond its recent rate of bytes sent to other subtasks
   * @param inputWatermark its inputs' watermark (Flink's {@code currentInputWatermark}), {@link
   *     Long#MIN_VALUE} before one and for a source
   * @param outputWatermark a source's emitted watermark, {@link Long#MIN_VALUE} before one and for
   *     a subtask that is no source
   * @param operatorMetrics its functions' metrics by their names in Flink's REST API ({@code
   *     <operator>.<scope>.<name>}), as text; empty once it ended
   */
  public record Io(
      long recordsIn,
      long recordsOut,
      long bytesIn,
      long bytesOut,
      long idleMillis,
      long backPressuredMillis,
      long busyMillis,
      double idleRatio,
      double backPressuredRatio,
      double busyRatio,
      double recordsInPerSecond,
      double recordsOutPerSecond,
      double bytesInPerSecond,
      double bytesOutPerSecond,
      long inputWatermark,
      long outputWatermark,
      Map<String, String> operatorMetrics) {
    public Io {
      operatorMetrics = Map.copyOf(operatorMetrics);
    }
  }
}

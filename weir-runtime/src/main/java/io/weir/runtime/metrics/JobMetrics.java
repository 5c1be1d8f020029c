package io.weir.runtime.metrics;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A job's metrics as its job master sees them now, by Flink's names and in Flink's units. Values
 * that do not exist yet are -1: the last checkpoint's figures before a checkpoint completed, the
 * restore timestamp before a restore, the uptime once the job ended.
 *
 * @param lastCheckpointDuration end to end, trigger to completion, of the newest completed
 *     checkpoint or savepoint, in milliseconds
 * @param lastCheckpointSize the bytes it wrote (for an incremental checkpoint only its new files)
 * @param lastCheckpointFullSize the bytes of state it refers to, shared files included
 * @param numberOfCompletedCheckpoints checkpoints and savepoints completed since the job master
 *     started
 * @param numberOfFailedCheckpoints checkpoints and savepoints aborted since then
 * @param numberOfInProgressCheckpoints checkpoints and savepoints triggered and not yet ended
 * @param lastCheckpointRestoreTimestamp when the job last deployed its subtasks from a checkpoint
 *     or savepoint, in epoch milliseconds
 * @param numRestarts restarts since the job master started, a fallback to an older checkpoint
 *     included
 * @param uptime how long the current attempt has been running, in milliseconds; 0 while the job is
 *     not running (restarting, reconciling), -1 once it ended
 */
public record JobMetrics(
    long lastCheckpointDuration,
    long lastCheckpointSize,
    long lastCheckpointFullSize,
    long numberOfCompletedCheckpoints,
    long numberOfFailedCheckpoints,
    long numberOfInProgressCheckpoints,
    long lastCheckpointRestoreTimestamp,
    long numRestarts,
    long uptime) {

  /** The metrics' names, in the order of {@link #asMap()}. */
  public static final List<String> NAMES =
      List.of(
          "lastCheckpointDuration",
          "lastCheckpointSize",
          "lastCheckpointFullSize",
          "numberOfCompletedCheckpoints",
          "numberOfFailedCheckpoints",
          "numberOfInProgressCheckpoints",
          "lastCheckpointRestoreTimestamp",
          "numRestarts",
          "uptime");

  /** Every metric by its name, in the order of {@link #NAMES}. */
  public Map<String, Long> asMap() {
    long[] values = {
      lastCheckpointDuration,
      lastCheckpointSize,
      lastCheckpointFullSize,
      numberOfCompletedCheckpoints,
      numberOfFailedCheckpoints,
      numberOfInProgressCheckpoints,
      lastCheckpointRestoreTimestamp,
      numRestarts,
      uptime
    };
    Map<String, Long> map = new LinkedHashMap<>();
    for (int i = 0; i < values.length; i++) {
      map.put(NAMES.get(i), values[i]);
    }
    return map;
  }
}

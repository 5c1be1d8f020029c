package io.weir.runtime.checkpoint;

import io.weir.api.CheckpointStatistics;
import java.util.List;

/**
 * The flight recorder's history of a job's checkpoints: what the coordinator keeps in memory
 * ({@code web.checkpoints.history}) and writes beside each completed checkpoint's and savepoint's
 * metadata, so a JobManager that takes the job up again — restarted, failed over, or resuming it
 * from that checkpoint — shows the history before it. Never needed for a restore.
 *
 * @param completed how many checkpoints and savepoints completed, over the job's life
 * @param failed how many failed
 * @param checkpoints the ended checkpoints and savepoints kept, oldest first
 */
public record CheckpointHistory(
    long completed, long failed, List<CheckpointStatistics> checkpoints) {

  public CheckpointHistory {
    checkpoints = List.copyOf(checkpoints);
  }

  /** No checkpoint yet. */
  public static final CheckpointHistory EMPTY = new CheckpointHistory(0, 0, List.of());
}

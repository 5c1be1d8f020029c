package io.weir.runtime.checkpoint;

import io.weir.api.CheckpointStatistics;
import io.weir.runtime.storage.CheckpointStorageCoordinatorView;
import java.io.IOException;
import java.util.List;
import java.util.concurrent.Executor;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The coordinator's flight recorder: every checkpoint's and savepoint's statistics as it runs,
 * completes or fails — each subtask's start delay, alignment, synchronous and asynchronous parts,
 * sizes and the time its acknowledgement arrived — in a bounded history ({@code
 * web.checkpoints.history}). When a checkpoint completes, the history is written beside its
 * metadata (off the coordinator's lock, on the I/O executor, after the metadata), so whoever takes
 * the job up from that checkpoint shows what came before. Not thread-safe: the {@link
 * CheckpointCoordinator} calls it under its lock.
 */
final class CheckpointFlightRecorder {

  private static final Logger LOG = LoggerFactory.getLogger(CheckpointFlightRecorder.class);

  private final String jobId;
  private final CheckpointStatsTracker tracker;
  private final CheckpointStorageCoordinatorView storage;
  private final Executor io;
  private final LongSupplier clock;

  CheckpointFlightRecorder(
      String jobId,
      int historySize,
      CheckpointStorageCoordinatorView storage,
      Executor io,
      LongSupplier clock) {
    this.jobId = jobId;
    this.tracker = new CheckpointStatsTracker(historySize);
    this.storage = storage;
    this.io = io;
    this.clock = clock;
  }

  /** {@code p} was triggered, or one more subtask acknowledged it. */
  void inProgress(PendingCheckpoint p) {
    tracker.recordInProgress(p.id, p.isSavepoint(), p.timestamp, p.subtaskStatistics());
  }

  /** {@code p}'s metadata is written: recorded, and the history written beside it. */
  void completed(PendingCheckpoint p) {
    tracker.recordCompleted(
        p.id,
        p.isSavepoint(),
        p.timestamp,
        clock.getAsLong(),
        p.subtaskStatistics(),
        p.externalPath());
    CheckpointHistory history = tracker.snapshot();
    String pointer = p.externalPath();
    io.execute(
        () -> {
          try {
            storage.writeHistory(pointer, history);
          } catch (IOException | RuntimeException e) {
            // Only the history is lost: a restore never reads it.
            LOG.warn(
                "Could not write the checkpoint history of job {} beside {}", jobId, pointer, e);
          }
        });
  }

  /** {@code p} was aborted, and why. */
  void failed(PendingCheckpoint p, String why) {
    tracker.recordFailed(
        p.id, p.isSavepoint(), p.timestamp, clock.getAsLong(), p.subtaskStatistics(), why);
  }

  /**
   * Takes up the history kept beside the checkpoint or savepoint at {@code pointer}, which the job
   * resumes from; a missing or unreadable one is logged and costs only the history.
   */
  void restore(String pointer) {
    try {
      CheckpointHistory earlier = storage.readHistory(pointer);
      tracker.restore(earlier);
      LOG.info(
          "Job {} takes up the history of {} checkpoints kept beside {}",
          jobId,
          earlier.checkpoints().size(),
          pointer);
    } catch (IOException | RuntimeException e) {
      LOG.warn("Job {} starts without its checkpoint history: {}", jobId, e.getMessage());
    }
  }

  /** The recent checkpoints, oldest first. */
  List<CheckpointStatistics> statistics() {
    return tracker.statistics();
  }

  CheckpointStatsCounts counts() {
    return tracker.counts();
  }

  CheckpointStatistics latestCompleted() {
    return tracker.latestCompleted();
  }
}

package io.weir.runtime.checkpoint;

import io.weir.api.CheckpointStatistics;
import io.weir.runtime.storage.CheckpointStorageCoordinatorView;
import java.io.IOException;
import java.util.List;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The coordinator's flight recorder: every checkpoint's and savepoint's statistics as it runs,
 * completes or fails — each subtask's start delay, alignment, synchronous and asynchronous parts,
 * sizes and the time its acknowledgement arrived — in a bounded history ({@code
 * web.checkpoints.history}). When a checkpoint completes, the history is written beside its
 * metadata (after the metadata, before the checkpoint is recorded as completed), so whoever takes
 * the job up from that checkpoint shows what came before. Not thread-safe: the {@link
 * CheckpointCoordinator} and its {@link CheckpointFinalizer} call it under the coordinator's lock,
 * except {@link #write}.
 *
 * <p>A two-phase-commit sink commits after the checkpoint completed, when the history beside its
 * metadata is written already: its commit is recorded when the subtask reports it ({@link
 * #sinkCommitted}), and {@link SinkCommitHistory} writes the history beside that checkpoint again
 * (the next checkpoint's carries it anyway).
 */
final class CheckpointFlightRecorder {

  private static final Logger LOG = LoggerFactory.getLogger(CheckpointFlightRecorder.class);

  private final String jobId;
  private final CheckpointStatsTracker tracker;
  private final CheckpointStorageCoordinatorView storage;
  private final LongSupplier relativeClock;

  /**
   * @param relativeClock the coordinator's clock that only moves forward ({@link
   *     PendingCheckpoint#wallClockAt})
   */
  CheckpointFlightRecorder(
      String jobId,
      int historySize,
      CheckpointStorageCoordinatorView storage,
      LongSupplier relativeClock) {
    this.jobId = jobId;
    this.tracker = new CheckpointStatsTracker(historySize);
    this.storage = storage;
    this.relativeClock = relativeClock;
  }

  /** {@code p} was triggered, or one more subtask acknowledged it. */
  void inProgress(PendingCheckpoint p) {
    tracker.recordInProgress(p.id, p.isSavepoint(), p.timestamp, p.subtaskStatistics());
  }

  /**
   * The history to write beside {@code p}'s metadata, which was just written: this recorder's, with
   * {@code p} completed.
   */
  CheckpointHistory historyOnCompletion(PendingCheckpoint p) {
    return tracker.snapshotIfCompleted(
        p.id,
        p.isSavepoint(),
        p.timestamp,
        p.committedAt(),
        p.subtaskStatistics(),
        p.externalPath());
  }

  /**
   * Writes {@code history} beside the metadata at {@code pointer}; off the coordinator's lock,
   * before the checkpoint is recorded and announced, so whoever takes the job up from it finds it.
   * A failure costs only the history (a restore never reads it) and is logged.
   */
  void write(String pointer, CheckpointHistory history) {
    try {
      storage.writeHistory(pointer, history);
    } catch (IOException | RuntimeException e) {
      LOG.warn("Could not write the checkpoint history of job {} beside {}", jobId, pointer, e);
    }
  }

  /** {@code p} is recorded and retained (or, a savepoint, handed to whoever asked for it). */
  void completed(PendingCheckpoint p) {
    tracker.recordCompleted(
        p.id,
        p.isSavepoint(),
        p.timestamp,
        p.committedAt(),
        p.subtaskStatistics(),
        p.externalPath());
  }

  /**
   * A sink subtask reported its commit after checkpoint {@code checkpointId} completed: recorded in
   * that checkpoint's statistics. False when the history does not hold it.
   */
  boolean sinkCommitted(
      long checkpointId, int vertex, int subtask, CheckpointStatistics.SinkCommit commit) {
    return tracker.recordCommit(checkpointId, vertex, subtask, commit);
  }

  /** The ended checkpoints kept and the counts: what {@link #write} writes. */
  CheckpointHistory history() {
    return tracker.snapshot();
  }

  /** {@code p} was aborted, and why. */
  void failed(PendingCheckpoint p, String why) {
    tracker.recordFailed(
        p.id,
        p.isSavepoint(),
        p.timestamp,
        p.wallClockAt(relativeClock.getAsLong()),
        p.subtaskStatistics(),
        why);
  }

  /**
   * Takes up the history kept beside the checkpoint or savepoint at {@code pointer}, which the job
   * resumes from; a missing or unreadable one is logged and costs only the history.
   */
  void restore(String pointer) {
    try {
      CheckpointHistory earlier = storage.readHistory(pointer);
      if (earlier.checkpoints().isEmpty()) {
        LOG.info("Job {} finds no checkpoint history beside {}", jobId, pointer);
        return;
      }
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

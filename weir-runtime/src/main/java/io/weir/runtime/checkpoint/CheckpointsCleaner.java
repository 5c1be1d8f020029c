package io.weir.runtime.checkpoint;

import io.weir.runtime.storage.CheckpointStorageCoordinatorView;
import java.util.Set;
import java.util.concurrent.Executor;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Deletes what the coordinator no longer needs (Flink's {@code CheckpointsCleaner}): subsumed and
 * aborted checkpoints, failed savepoints, shared files no retained checkpoint refers to, and the
 * orphans of earlier attempts. Every delete runs on the job's I/O executor, in the order asked, off
 * the coordinator's lock; a delete that fails is logged and left for the next sweep ({@code weir
 * checkpoints --clean} finds what is left), never a reason to fail the job.
 */
final class CheckpointsCleaner {

  private static final Logger LOG = LoggerFactory.getLogger(CheckpointCoordinator.class);

  /** One delete on the storage. */
  @FunctionalInterface
  private interface Delete {
    void run(CheckpointStorageCoordinatorView storage) throws Exception;
  }

  private final String jobId;
  private final CheckpointStorageCoordinatorView storage;
  private final Executor io;

  CheckpointsCleaner(String jobId, CheckpointStorageCoordinatorView storage, Executor io) {
    this.jobId = jobId;
    this.storage = storage;
    this.io = io;
  }

  /** The files of checkpoint {@code id}, subsumed or aborted. */
  void discardCheckpoint(long id) {
    later(s -> s.discardCheckpoint(id), "the files of checkpoint " + id);
  }

  /** The directory of savepoint {@code id}, which did not complete. */
  void discardSavepoint(long id, String directory) {
    later(
        s -> s.discardSavepoint(directory), directory + ", of savepoint " + id + ", which failed");
  }

  /** Shared files up to {@code upToCheckpointId} that are not in {@code referenced}. */
  void discardUnreferencedSharedState(Set<String> referenced, long upToCheckpointId) {
    Set<String> snapshot = Set.copyOf(referenced);
    later(
        s -> s.discardUnreferencedSharedState(snapshot, upToCheckpointId),
        "the unreferenced shared state of job " + jobId + " up to checkpoint " + upToCheckpointId);
  }

  /** What no completed checkpoint references (see {@link CheckpointCoordinator}). */
  void discardOrphanedState(boolean nothingInProgress) {
    later(
        s -> s.discardOrphanedState(nothingInProgress),
        "the orphaned checkpoint files of job " + jobId);
  }

  /** A delete of something else the job owns (a claimed checkpoint it was restored from). */
  void discard(Runnable delete) {
    io.execute(delete);
  }

  private void later(Delete delete, String what) {
    io.execute(
        () -> {
          try {
            delete.run(storage);
          } catch (Exception e) {
            LOG.warn("Could not delete {}", what, e);
          }
        });
  }
}

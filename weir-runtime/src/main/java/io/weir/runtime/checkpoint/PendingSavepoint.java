package io.weir.runtime.checkpoint;

import io.weir.runtime.checkpoint.CheckpointCoordinator.TaskKey;
import java.util.Set;
import java.util.concurrent.CompletableFuture;

/**
 * A triggered savepoint waiting for its tasks' acknowledgements: a pending checkpoint with a
 * directory of its own, named at the trigger, into which its tasks write their state, and someone
 * waiting for its path. Not thread-safe, as {@link PendingCheckpoint}.
 */
final class PendingSavepoint extends PendingCheckpoint {

  /** Where its tasks write their state and the coordinator its metadata. */
  final String directory;

  private final CompletableFuture<String> result;

  /**
   * @param result completed with its path, or exceptionally with why it failed
   */
  PendingSavepoint(
      long id,
      long timestamp,
      long relativeTimestamp,
      Set<TaskKey> tasks,
      CheckpointOptions options,
      long epoch,
      String directory,
      CompletableFuture<String> result) {
    super(id, timestamp, relativeTimestamp, tasks, options, epoch);
    this.directory = directory;
    this.result = result;
  }

  @Override
  boolean isSavepoint() {
    return true;
  }

  /** A stop-with-savepoint: the tasks end once it completed. */
  boolean isStopping() {
    return options.isSynchronous();
  }

  /** Its metadata was written at its {@link #externalPath()}: whoever triggered it gets that. */
  void completed() {
    result.complete(externalPath());
  }

  /** It was aborted: whoever triggered it hears why. */
  void failed(CheckpointException why) {
    result.completeExceptionally(why);
  }
}

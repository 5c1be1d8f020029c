package io.weir.api.source;

import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * Reads the records of the splits assigned to one source subtask. All methods run on the task
 * thread, so a reader needs no locking; {@link #snapshotState} runs between two {@link #pollNext}
 * calls, which makes the returned splits an exact position in the input.
 */
public interface SourceReader<T, SplitT> extends AutoCloseable {

  /** Called before the first poll with the splits of this subtask (fresh or restored). */
  void addSplits(List<SplitT> splits);

  /** Emits zero or more records and says whether more are ready. */
  InputStatus pollNext(ReaderOutput<T> output) throws Exception;

  /** Completes when {@link #pollNext} has something to say after NOTHING_AVAILABLE. */
  default CompletableFuture<Void> isAvailable() {
    return CompletableFuture.completedFuture(null);
  }

  /** The splits of this reader with their current progress, for a checkpoint. */
  List<SplitT> snapshotState(long checkpointId);

  /** Checkpoint {@code checkpointId} completed; a reader may now commit offsets externally. */
  default void notifyCheckpointComplete(long checkpointId) throws Exception {}

  @Override
  default void close() throws Exception {}
}

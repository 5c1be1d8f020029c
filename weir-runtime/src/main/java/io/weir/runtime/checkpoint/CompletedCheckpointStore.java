package io.weir.runtime.checkpoint;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;

/**
 * The completed checkpoints a job retains, newest first, at most {@code num-retained}. In one
 * process a list in memory; with high availability one on ZooKeeper that a new leader recovers.
 * Callers synchronize (the coordinator holds its lock).
 */
public interface CompletedCheckpointStore {

  /**
   * Adds the newest completed checkpoint and returns those it pushed out of the retained ones,
   * oldest first: their files may be deleted.
   */
  List<CompletedCheckpoint> add(CompletedCheckpoint checkpoint);

  /** The retained checkpoints, newest first. */
  List<CompletedCheckpoint> all();

  /** Removes every retained checkpoint and returns them, oldest first. */
  List<CompletedCheckpoint> removeAll();

  /**
   * Records that the job's stop-with-savepoint completed, before any of its tasks is told (and its
   * sinks commit): a job master that takes the job over later ends it rather than restoring an
   * older checkpoint, which would commit the records up to the savepoint a second time.
   *
   * @throws RuntimeException when it cannot be recorded (with high availability: fenced, or its
   *     outcome unknown): then no task is told, and the stop fails
   */
  void stopCompleted(CompletedStop stop);

  /** The completed stop-with-savepoint recorded, or null. */
  CompletedStop completedStop();

  /** A store in memory that keeps the newest {@code numRetained}, starting with {@code initial}. */
  static CompletedCheckpointStore inMemory(int numRetained, List<CompletedCheckpoint> initial) {
    Deque<CompletedCheckpoint> completed = new ArrayDeque<>(initial);
    return new CompletedCheckpointStore() {
      private volatile CompletedStop stop;

      @Override
      public List<CompletedCheckpoint> add(CompletedCheckpoint checkpoint) {
        completed.addFirst(checkpoint);
        List<CompletedCheckpoint> subsumed = new ArrayList<>();
        while (completed.size() > numRetained) {
          subsumed.add(completed.removeLast());
        }
        return subsumed;
      }

      @Override
      public List<CompletedCheckpoint> all() {
        return List.copyOf(completed);
      }

      @Override
      public List<CompletedCheckpoint> removeAll() {
        List<CompletedCheckpoint> all = new ArrayList<>();
        while (!completed.isEmpty()) {
          all.add(completed.removeLast());
        }
        return all;
      }

      @Override
      public void stopCompleted(CompletedStop stop) {
        this.stop = stop;
      }

      @Override
      public CompletedStop completedStop() {
        return stop;
      }
    };
  }
}

package io.weir.runtime.checkpoint;

import java.util.concurrent.Executor;

/** What the {@link CheckpointCoordinator} needs from the outside world. */
public interface CheckpointCoordinatorContext {
  /** The wall clock, for the timestamps of checkpoints and their statistics. */
  long currentTimeMillis();

  /**
   * A clock that only moves forward, in milliseconds from an arbitrary origin, for how long to
   * wait: min pause is measured on it, so a step of the wall clock (an NTP correction, a resumed
   * virtual machine) neither holds checkpoints back for the length of the step nor hurries them, as
   * Flink's coordinator measures it on its relative clock.
   */
  default long relativeTimeMillis() {
    return System.nanoTime() / 1_000_000;
  }

  /** Runs {@code action} once after {@code delayMillis}; the result cancels it. */
  Runnable schedule(Runnable action, long delayMillis);

  /**
   * Asks every running source subtask to take checkpoint (or savepoint) {@code id} and emit its
   * barrier.
   */
  void triggerSources(long checkpointId, long timestamp, CheckpointOptions options);

  /** Tells every task that {@code checkpointId} completed. */
  void notifyComplete(long checkpointId);

  /** Tells every task that {@code checkpointId} was aborted. */
  void notifyAborted(long checkpointId);

  /** Fails the job: too many checkpoints failed. */
  void failJob(Throwable cause);

  /**
   * Where {@code task} runs, so that a message lets an operator find it: its TaskManager as the
   * cluster names it, {@code tm-1 (127.0.0.1:41234)}, or null when not known (not placed yet).
   * Called under the coordinator's lock: answers from what it knows, waits for nothing. Null by
   * default.
   */
  default String locationOf(CheckpointCoordinator.TaskKey task) {
    return null;
  }

  /**
   * Runs deletes of checkpoint files, in order, off the coordinator's lock. Runs them at once by
   * default (tests).
   */
  default Executor ioExecutor() {
    return Runnable::run;
  }
}

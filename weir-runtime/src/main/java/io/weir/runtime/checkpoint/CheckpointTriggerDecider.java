package io.weir.runtime.checkpoint;

/**
 * Decides when the next periodic checkpoint starts: on the interval, but never while {@code
 * max-concurrent-checkpoints} are in flight, never sooner than {@code min-pause} after the last one
 * ended, and never while a stop-with-savepoint is pending (with drain, a checkpoint could complete
 * as a final one and end the job before the savepoint). Holds no threads and reads no clock: the
 * caller passes the time, of a clock that only moves forward ({@link
 * CheckpointCoordinatorContext#relativeTimeMillis}), and runs the timers. Not thread-safe: the
 * {@link CheckpointCoordinator} and its {@link CheckpointFinalizer} call it under the coordinator's
 * lock.
 */
final class CheckpointTriggerDecider {

  /** What to do when the trigger timer fires. */
  sealed interface Decision {}

  /** Trigger a checkpoint now and fire the timer again after {@code nextTimerDelayMillis}. */
  record TriggerNow(long nextTimerDelayMillis) implements Decision {}

  /** Too soon after the last checkpoint ended: fire the timer again after {@code delayMillis}. */
  record RetryAfter(long delayMillis) implements Decision {}

  /**
   * Too many in flight, or a stop-with-savepoint pending: the end of a checkpoint starts the timer
   * again ({@link #delayAfterEnd()}).
   */
  record WaitForEnd() implements Decision {}

  private static final long NO_STOP_WITH_SAVEPOINT = -1;

  private final long intervalMillis;
  private final long minPauseMillis;
  private final int maxConcurrent;

  /** Far enough in the past that the first checkpoint waits for no pause, yet cannot overflow. */
  private long lastEnd = Long.MIN_VALUE / 2;

  private long stopWithSavepoint = NO_STOP_WITH_SAVEPOINT;

  /**
   * @param intervalMillis time between triggers; 0 or less turns periodic checkpoints off
   * @param minPauseMillis least time between the end of one checkpoint and the next trigger
   * @param maxConcurrent most checkpoints in flight at once
   */
  CheckpointTriggerDecider(long intervalMillis, long minPauseMillis, int maxConcurrent) {
    this.intervalMillis = intervalMillis;
    this.minPauseMillis = minPauseMillis;
    this.maxConcurrent = maxConcurrent;
  }

  /** False when checkpoints are off: only the savepoints asked for are taken. */
  boolean periodic() {
    return intervalMillis > 0;
  }

  /** The delay of the first trigger after the coordinator starts. */
  long initialDelay() {
    return intervalMillis;
  }

  /**
   * The trigger timer fired at {@code now} with {@code inFlight} checkpoints pending or having
   * their metadata written (those count too, so a slow store is not overtaken).
   */
  Decision onTimer(int inFlight, long now) {
    if (inFlight >= maxConcurrent || stopping()) {
      return new WaitForEnd();
    }
    long pauseLeft = lastEnd + minPauseMillis - now;
    if (pauseLeft > 0) {
      return new RetryAfter(pauseLeft);
    }
    return new TriggerNow(intervalMillis);
  }

  /** The delay of the trigger timer after a checkpoint ended, when no timer is set. */
  long delayAfterEnd() {
    return minPauseMillis;
  }

  /** How long from {@code now} until min pause allows a trigger, for a trigger asked for early. */
  long delayUntilPauseOver(long now) {
    return Math.max(0, lastEnd + minPauseMillis - now);
  }

  /**
   * A checkpoint completed, or failed in a way that counts, at {@code now}: min pause runs from
   * here. A subsumed checkpoint, a stopped job's or a savepoint does not end one.
   */
  void checkpointEnded(long now) {
    lastEnd = now;
  }

  /** Stop-with-savepoint {@code savepointId} was triggered: no checkpoint starts until it fails. */
  void stopWithSavepointTriggered(long savepointId) {
    stopWithSavepoint = savepointId;
  }

  /**
   * Savepoint {@code savepointId} was aborted; if it was the stop-with-savepoint, checkpoints may
   * start again. A completed one keeps the gate shut: the job ends.
   */
  void savepointAborted(long savepointId) {
    if (stopWithSavepoint == savepointId) {
      stopWithSavepoint = NO_STOP_WITH_SAVEPOINT;
    }
  }

  /**
   * A new attempt of the job starts (after a failover): a stop-with-savepoint that completed before
   * the job failed did not stop it, so checkpoints and savepoints start again. A pending one was
   * aborted when the attempt ended.
   */
  void attemptStarted() {
    stopWithSavepoint = NO_STOP_WITH_SAVEPOINT;
  }

  /** True while a stop-with-savepoint is pending or has completed. */
  boolean stopping() {
    return stopWithSavepoint != NO_STOP_WITH_SAVEPOINT;
  }
}

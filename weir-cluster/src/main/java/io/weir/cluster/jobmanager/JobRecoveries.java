package io.weir.cluster.jobmanager;

import io.weir.cluster.ha.CheckpointsUnreadableException;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs the recovery of a job a previous leader was given, and runs it again later when it failed
 * because the job's retained checkpoints could not be read for a reason that may pass ({@link
 * CheckpointsUnreadableException}): recovering the job from an older checkpoint instead could emit
 * again what its sinks committed. It is tried again, with a growing delay, for as long as the term
 * that started it lasts; any other failure is logged once and the job is left as it is.
 *
 * <p>Thread safe. A recovery runs on the caller's thread the first time and on the executor of
 * attempts after that.
 */
final class JobRecoveries {

  private static final Logger LOG = LoggerFactory.getLogger(JobRecoveries.class);

  /** A job's recovery: runs its program under its own id. */
  @FunctionalInterface
  interface Recovery {
    void run() throws Exception;
  }

  private final ScheduledExecutorService timer;
  private final Executor attempts;
  private final long firstDelayMillis;
  private final long maxDelayMillis;

  /**
   * @param timer schedules the attempts; once it is shut down, no attempt is scheduled
   * @param attempts runs the attempts after the first, off the timer's thread
   * @param firstDelayMillis the wait before the second attempt, doubled after each failure
   * @param maxDelayMillis the longest wait between attempts
   */
  JobRecoveries(
      ScheduledExecutorService timer,
      Executor attempts,
      long firstDelayMillis,
      long maxDelayMillis) {
    this.timer = timer;
    this.attempts = attempts;
    this.firstDelayMillis = firstDelayMillis;
    this.maxDelayMillis = maxDelayMillis;
  }

  /**
   * Runs {@code recovery} now, and again while it fails on unreadable checkpoints and {@code
   * stillLeading} holds.
   *
   * @param what names the job in the log
   */
  void recover(String what, BooleanSupplier stillLeading, Recovery recovery) {
    attempt(what, stillLeading, recovery, firstDelayMillis);
  }

  private void attempt(
      String what, BooleanSupplier stillLeading, Recovery recovery, long delayMillis) {
    try {
      recovery.run();
    } catch (Exception e) {
      CheckpointsUnreadableException unreadable = unreadableCheckpoints(e);
      if (unreadable == null) {
        LOG.error("The {} cannot be recovered: {}", what, e.getMessage(), e);
        return;
      }
      LOG.warn(
          "The {} is not recovered yet, trying again in {} ms: {}",
          what,
          delayMillis,
          unreadable.getMessage());
      long nextDelay = Math.min(maxDelayMillis, delayMillis * 2);
      try {
        timer.schedule(
            () -> {
              if (stillLeading.getAsBoolean()) {
                attempts.execute(() -> attempt(what, stillLeading, recovery, nextDelay));
              }
            },
            delayMillis,
            TimeUnit.MILLISECONDS);
      } catch (RejectedExecutionException closing) {
        LOG.info("The {} is not tried again: the JobManager is closing", what);
      }
    }
  }

  private static CheckpointsUnreadableException unreadableCheckpoints(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof CheckpointsUnreadableException unreadable) {
        return unreadable;
      }
    }
    return null;
  }
}

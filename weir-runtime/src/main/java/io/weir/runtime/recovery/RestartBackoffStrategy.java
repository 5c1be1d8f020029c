package io.weir.runtime.recovery;

/**
 * Decides, failure by failure, whether a failed job restarts and after which delay: the runtime
 * side of a {@link io.weir.api.RestartStrategy}, as Flink's {@code RestartBackoffTimeStrategy}.
 *
 * <p>Pure decision logic: no threads, no sleeping and no clock. The caller passes the time of each
 * failure, then asks {@link #canRestart()} and, if so, waits {@link #getBackoffMillis()} before it
 * redeploys. Call {@link #notifyFailure} once per failed attempt of the job (not once per failed
 * task). An instance belongs to one job and is used from one thread at a time.
 */
public interface RestartBackoffStrategy {

  /** Records that the job's current attempt failed at {@code nowMillis} (any monotonic clock). */
  void notifyFailure(long nowMillis);

  /** Whether the job may restart after the failures recorded so far. */
  boolean canRestart();

  /** How long to wait before the restart that follows the latest failure, in milliseconds. */
  long getBackoffMillis();

  /**
   * The strategy, its settings and its state, for log lines and for the message of a job that will
   * not restart, e.g. {@code fixed-delay (3 attempts, 1 s delay): 4 failures}.
   */
  String describe();
}

package io.weir.runtime.recovery;

import io.weir.api.RestartStrategy;
import io.weir.api.config.RestartStrategyOptions;
import java.util.Random;

/**
 * Restarts with a delay that starts at the initial backoff and is multiplied after every failure up
 * to the max backoff, plus or minus a random jitter of up to {@code jitterFactor} of it (never
 * below the initial nor above the max backoff). When the job has been running for the reset
 * threshold since its last restart, the next failure starts over at the initial backoff and with a
 * fresh count of attempts; the job fails when it needs more than {@code attemptsBeforeResetBackoff}
 * restarts without such a reset. This is Flink 2.x's behaviour, except that each failure passed in
 * counts (Flink folds failures that arrive while a restart is pending into one; Weir's caller
 * reports one failure per attempt).
 */
final class ExponentialDelayRestartBackoffStrategy implements RestartBackoffStrategy {

  private final RestartStrategy.ExponentialDelay settings;
  private final long initialBackoffMillis;
  private final long maxBackoffMillis;
  private final long resetThresholdMillis;
  private final Random random;

  /** Restarts since the last reset, including the one that follows the latest failure. */
  private long attempts;

  /** When the latest restart happens (latest failure + its backoff); valid if attempts > 0. */
  private long restartAtMillis;

  private boolean failedBefore;
  private long backoffMillis;

  ExponentialDelayRestartBackoffStrategy(RestartStrategy.ExponentialDelay settings, Random random) {
    this.settings = settings;
    this.initialBackoffMillis = settings.initialBackoff().toMillis();
    this.maxBackoffMillis = settings.maxBackoff().toMillis();
    this.resetThresholdMillis = settings.resetBackoffThreshold().toMillis();
    this.random = random;
    this.backoffMillis = initialBackoffMillis;
  }

  @Override
  public void notifyFailure(long nowMillis) {
    if (!failedBefore || nowMillis - restartAtMillis >= resetThresholdMillis) {
      attempts = 0;
    }
    failedBefore = true;
    backoffMillis = backoffForAttempt(attempts);
    restartAtMillis = nowMillis + backoffMillis;
    attempts++;
  }

  @Override
  public boolean canRestart() {
    return attempts <= settings.attemptsBeforeResetBackoff();
  }

  @Override
  public long getBackoffMillis() {
    return backoffMillis;
  }

  /** The backoff of the {@code n}-th restart after a reset (0-based), jitter included. */
  private long backoffForAttempt(long n) {
    double exact = initialBackoffMillis * Math.pow(settings.multiplier(), n);
    long base = exact >= maxBackoffMillis ? maxBackoffMillis : (long) exact;
    long offset = (long) (base * settings.jitterFactor());
    long jitter = offset == 0 ? 0 : random.nextLong(-offset, offset + 1);
    return Math.max(initialBackoffMillis, Math.min(maxBackoffMillis, base + jitter));
  }

  @Override
  public String describe() {
    if (canRestart()) {
      return settings
          + ": restart "
          + attempts
          + " since the last reset, after "
          + backoffMillis
          + " ms";
    }
    return settings
        + ": "
        + attempts
        + " failures without a reset exceed "
        + RestartStrategyOptions.RESTART_STRATEGY_EXPONENTIAL_DELAY_ATTEMPTS.key()
        + " = "
        + settings.attemptsBeforeResetBackoff();
  }

  @Override
  public String toString() {
    return describe();
  }
}

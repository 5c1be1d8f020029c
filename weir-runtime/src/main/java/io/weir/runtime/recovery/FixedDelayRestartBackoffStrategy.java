package io.weir.runtime.recovery;

import io.weir.api.RestartStrategy;
import io.weir.api.config.RestartStrategyOptions;

/**
 * Restarts after a fixed delay until the number of failures exceeds the allowed attempts: with
 * {@code attempts = 3} the fourth failure fails the job.
 */
final class FixedDelayRestartBackoffStrategy implements RestartBackoffStrategy {

  private final RestartStrategy.FixedDelay settings;
  private final long delayMillis;
  private long failures;

  FixedDelayRestartBackoffStrategy(RestartStrategy.FixedDelay settings) {
    this.settings = settings;
    this.delayMillis = settings.delay().toMillis();
  }

  @Override
  public void notifyFailure(long nowMillis) {
    failures++;
  }

  @Override
  public boolean canRestart() {
    return failures <= settings.attempts();
  }

  @Override
  public long getBackoffMillis() {
    return delayMillis;
  }

  @Override
  public String describe() {
    if (canRestart()) {
      return settings + ": " + failures + " of " + settings.attempts() + " restarts used";
    }
    return settings
        + ": "
        + failures
        + " failures exceed "
        + RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_ATTEMPTS.key()
        + " = "
        + settings.attempts();
  }

  @Override
  public String toString() {
    return describe();
  }
}

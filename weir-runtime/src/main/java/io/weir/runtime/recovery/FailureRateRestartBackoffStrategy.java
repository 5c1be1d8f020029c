package io.weir.runtime.recovery;

import io.weir.api.RestartStrategy;
import io.weir.api.config.RestartStrategyOptions;
import io.weir.api.config.TimeUtils;
import java.util.ArrayDeque;

/**
 * Restarts after a fixed delay as long as failures are rare enough: the job fails when more than
 * {@code maxFailuresPerInterval} failures lie within one {@code failureRateInterval} (inclusive),
 * counted back from the latest failure. As Flink's {@code FailureRateRestartBackoffTimeStrategy}.
 */
final class FailureRateRestartBackoffStrategy implements RestartBackoffStrategy {

  private final RestartStrategy.FailureRate settings;
  private final long intervalMillis;
  private final long delayMillis;

  /** Times of the latest failures, oldest first; at most max + 1 of them. */
  private final ArrayDeque<Long> failureTimes = new ArrayDeque<>();

  FailureRateRestartBackoffStrategy(RestartStrategy.FailureRate settings) {
    this.settings = settings;
    this.intervalMillis = settings.failureRateInterval().toMillis();
    this.delayMillis = settings.delay().toMillis();
  }

  @Override
  public void notifyFailure(long nowMillis) {
    failureTimes.addLast(nowMillis);
    if (failureTimes.size() > (long) settings.maxFailuresPerInterval() + 1) {
      failureTimes.removeFirst();
    }
  }

  @Override
  public boolean canRestart() {
    if (failureTimes.size() <= settings.maxFailuresPerInterval()) {
      return true;
    }
    // max + 1 failures are recorded: restart only if they span more than one interval.
    return failureTimes.peekLast() - failureTimes.peekFirst() > intervalMillis;
  }

  @Override
  public long getBackoffMillis() {
    return delayMillis;
  }

  @Override
  public String describe() {
    if (canRestart()) {
      return settings.toString();
    }
    return settings
        + ": "
        + failureTimes.size()
        + " failures within "
        + TimeUtils.format(
            java.time.Duration.ofMillis(failureTimes.peekLast() - failureTimes.peekFirst()))
        + " exceed "
        + RestartStrategyOptions.RESTART_STRATEGY_FAILURE_RATE_MAX_FAILURES_PER_INTERVAL.key()
        + " = "
        + settings.maxFailuresPerInterval()
        + " per "
        + RestartStrategyOptions.RESTART_STRATEGY_FAILURE_RATE_FAILURE_RATE_INTERVAL.key()
        + " = "
        + TimeUtils.format(settings.failureRateInterval());
  }

  @Override
  public String toString() {
    return describe();
  }
}

package io.weir.api;

import static io.weir.api.config.RestartStrategyOptions.RESTART_STRATEGY;
import static io.weir.api.config.RestartStrategyOptions.RESTART_STRATEGY_EXPONENTIAL_DELAY_ATTEMPTS;
import static io.weir.api.config.RestartStrategyOptions.RESTART_STRATEGY_EXPONENTIAL_DELAY_BACKOFF_MULTIPLIER;
import static io.weir.api.config.RestartStrategyOptions.RESTART_STRATEGY_EXPONENTIAL_DELAY_INITIAL_BACKOFF;
import static io.weir.api.config.RestartStrategyOptions.RESTART_STRATEGY_EXPONENTIAL_DELAY_JITTER_FACTOR;
import static io.weir.api.config.RestartStrategyOptions.RESTART_STRATEGY_EXPONENTIAL_DELAY_MAX_BACKOFF;
import static io.weir.api.config.RestartStrategyOptions.RESTART_STRATEGY_EXPONENTIAL_DELAY_RESET_BACKOFF_THRESHOLD;
import static io.weir.api.config.RestartStrategyOptions.RESTART_STRATEGY_FAILURE_RATE_DELAY;
import static io.weir.api.config.RestartStrategyOptions.RESTART_STRATEGY_FAILURE_RATE_FAILURE_RATE_INTERVAL;
import static io.weir.api.config.RestartStrategyOptions.RESTART_STRATEGY_FAILURE_RATE_MAX_FAILURES_PER_INTERVAL;
import static io.weir.api.config.RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_ATTEMPTS;
import static io.weir.api.config.RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_DELAY;

import io.weir.api.config.ConfigOption;
import io.weir.api.config.Configuration;
import io.weir.api.config.RestartStrategyOptions;
import io.weir.api.config.TimeUtils;
import java.time.Duration;
import java.util.Objects;

/**
 * Whether and when a failed job restarts: {@link #none()}, {@link #fixedDelay}, {@link
 * #exponentialDelay} or {@link #failureRate}. A value that writes Flink's {@code
 * restart-strategy.*} keys into a {@link Configuration} ({@link #writeTo}) and can be read back
 * from one ({@link #fromConfiguration}), so code, YAML and {@code -D} settings meet in one place.
 * The constructors check the values and name the configuration key at fault.
 */
public sealed interface RestartStrategy {

  /** The canonical {@code restart-strategy.type} value, e.g. {@code fixed-delay}. */
  String type();

  /** Writes this strategy's type and parameters into {@code configuration}. */
  void writeTo(Configuration configuration);

  /** No restart: the first failure fails the job. */
  static RestartStrategy none() {
    return new NoRestart();
  }

  /**
   * Restarts up to {@code attempts} times, waiting {@code delay} before each; the next failure
   * fails the job.
   */
  static FixedDelay fixedDelay(int attempts, Duration delay) {
    return new FixedDelay(attempts, delay);
  }

  /** Exponential delay with Flink's defaults: 1 s growing by 1.5 up to 1 min, reset after 1 h. */
  static ExponentialDelay exponentialDelay() {
    return new ExponentialDelay(
        RESTART_STRATEGY_EXPONENTIAL_DELAY_INITIAL_BACKOFF.defaultValue(),
        RESTART_STRATEGY_EXPONENTIAL_DELAY_MAX_BACKOFF.defaultValue(),
        RESTART_STRATEGY_EXPONENTIAL_DELAY_BACKOFF_MULTIPLIER.defaultValue(),
        RESTART_STRATEGY_EXPONENTIAL_DELAY_RESET_BACKOFF_THRESHOLD.defaultValue(),
        RESTART_STRATEGY_EXPONENTIAL_DELAY_JITTER_FACTOR.defaultValue(),
        RESTART_STRATEGY_EXPONENTIAL_DELAY_ATTEMPTS.defaultValue());
  }

  /**
   * Restarts without limit; the delay starts at {@code initialBackoff} and is multiplied by {@code
   * multiplier} after each failure up to {@code maxBackoff}, give or take {@code jitterFactor} of
   * it. After the job has run {@code resetBackoffThreshold} without failure the delay starts over.
   */
  static ExponentialDelay exponentialDelay(
      Duration initialBackoff,
      Duration maxBackoff,
      double multiplier,
      Duration resetBackoffThreshold,
      double jitterFactor) {
    return new ExponentialDelay(
        initialBackoff,
        maxBackoff,
        multiplier,
        resetBackoffThreshold,
        jitterFactor,
        RESTART_STRATEGY_EXPONENTIAL_DELAY_ATTEMPTS.defaultValue());
  }

  /**
   * As {@link #exponentialDelay(Duration, Duration, double, Duration, double)}, but the job fails
   * after {@code attemptsBeforeResetBackoff} restarts without a reset in between.
   */
  static ExponentialDelay exponentialDelay(
      Duration initialBackoff,
      Duration maxBackoff,
      double multiplier,
      Duration resetBackoffThreshold,
      double jitterFactor,
      int attemptsBeforeResetBackoff) {
    return new ExponentialDelay(
        initialBackoff,
        maxBackoff,
        multiplier,
        resetBackoffThreshold,
        jitterFactor,
        attemptsBeforeResetBackoff);
  }

  /**
   * Restarts after {@code delay} unless more than {@code maxFailuresPerInterval} failures happened
   * within {@code failureRateInterval}; then the job fails.
   */
  static FailureRate failureRate(
      int maxFailuresPerInterval, Duration failureRateInterval, Duration delay) {
    return new FailureRate(maxFailuresPerInterval, failureRateInterval, delay);
  }

  /**
   * The strategy {@code configuration} asks for, with the default of a job whose checkpointing is
   * on or off as {@link CheckpointConfig#isCheckpointingEnabled(Configuration)} decides from the
   * same configuration.
   */
  static RestartStrategy fromConfiguration(Configuration configuration) {
    return fromConfiguration(configuration, CheckpointConfig.isCheckpointingEnabled(configuration));
  }

  /**
   * The strategy {@code configuration} describes. An explicit {@code restart-strategy.type} wins;
   * unset, it is exponential delay when checkpointing is on and none when it is off (Flink 2.x).
   * Parameters not set take their defaults.
   *
   * @throws IllegalArgumentException for an unknown type or an invalid parameter, naming the key
   */
  static RestartStrategy fromConfiguration(
      Configuration configuration, boolean checkpointingEnabled) {
    String type =
        configuration
            .getOptional(RESTART_STRATEGY)
            .orElse(
                checkpointingEnabled
                    ? RestartStrategyOptions.EXPONENTIAL_DELAY
                    : RestartStrategyOptions.NONE);
    return switch (type) {
      case RestartStrategyOptions.NONE -> none();
      case RestartStrategyOptions.FIXED_DELAY ->
          new FixedDelay(
              configuration.get(RESTART_STRATEGY_FIXED_DELAY_ATTEMPTS),
              configuration.get(RESTART_STRATEGY_FIXED_DELAY_DELAY));
      case RestartStrategyOptions.EXPONENTIAL_DELAY ->
          new ExponentialDelay(
              configuration.get(RESTART_STRATEGY_EXPONENTIAL_DELAY_INITIAL_BACKOFF),
              configuration.get(RESTART_STRATEGY_EXPONENTIAL_DELAY_MAX_BACKOFF),
              configuration.get(RESTART_STRATEGY_EXPONENTIAL_DELAY_BACKOFF_MULTIPLIER),
              configuration.get(RESTART_STRATEGY_EXPONENTIAL_DELAY_RESET_BACKOFF_THRESHOLD),
              configuration.get(RESTART_STRATEGY_EXPONENTIAL_DELAY_JITTER_FACTOR),
              configuration.get(RESTART_STRATEGY_EXPONENTIAL_DELAY_ATTEMPTS));
      case RestartStrategyOptions.FAILURE_RATE ->
          new FailureRate(
              configuration.get(RESTART_STRATEGY_FAILURE_RATE_MAX_FAILURES_PER_INTERVAL),
              configuration.get(RESTART_STRATEGY_FAILURE_RATE_FAILURE_RATE_INTERVAL),
              configuration.get(RESTART_STRATEGY_FAILURE_RATE_DELAY));
      default ->
          // Unreachable: the option's parser only yields canonical types.
          throw new IllegalArgumentException(
              "Unknown restart strategy '" + type + "' for key '" + RESTART_STRATEGY.key() + "'");
    };
  }

  /** See {@link RestartStrategy#none()}. */
  record NoRestart() implements RestartStrategy {
    @Override
    public String type() {
      return RestartStrategyOptions.NONE;
    }

    @Override
    public void writeTo(Configuration configuration) {
      configuration.set(RESTART_STRATEGY, type());
    }

    @Override
    public String toString() {
      return "none";
    }
  }

  /** See {@link RestartStrategy#fixedDelay}. */
  record FixedDelay(int attempts, Duration delay) implements RestartStrategy {
    public FixedDelay {
      atLeast("fixed-delay", "attempts", RESTART_STRATEGY_FIXED_DELAY_ATTEMPTS, attempts, 0);
      notNegative("fixed-delay", "delay", RESTART_STRATEGY_FIXED_DELAY_DELAY, delay);
    }

    @Override
    public String type() {
      return RestartStrategyOptions.FIXED_DELAY;
    }

    @Override
    public void writeTo(Configuration configuration) {
      configuration.set(RESTART_STRATEGY, type());
      configuration.set(RESTART_STRATEGY_FIXED_DELAY_ATTEMPTS, attempts);
      configuration.set(RESTART_STRATEGY_FIXED_DELAY_DELAY, delay);
    }

    @Override
    public String toString() {
      return "fixed-delay (" + attempts + " attempts, " + TimeUtils.format(delay) + " delay)";
    }
  }

  /** See {@link RestartStrategy#exponentialDelay(Duration, Duration, double, Duration, double)}. */
  record ExponentialDelay(
      Duration initialBackoff,
      Duration maxBackoff,
      double multiplier,
      Duration resetBackoffThreshold,
      double jitterFactor,
      int attemptsBeforeResetBackoff)
      implements RestartStrategy {
    public ExponentialDelay {
      String s = "exponential-delay";
      atLeastOneMilli(
          s, "initial backoff", RESTART_STRATEGY_EXPONENTIAL_DELAY_INITIAL_BACKOFF, initialBackoff);
      atLeastOneMilli(s, "max backoff", RESTART_STRATEGY_EXPONENTIAL_DELAY_MAX_BACKOFF, maxBackoff);
      if (initialBackoff.compareTo(maxBackoff) > 0) {
        throw new IllegalArgumentException(
            "Invalid exponential-delay restart strategy: the initial backoff ("
                + RESTART_STRATEGY_EXPONENTIAL_DELAY_INITIAL_BACKOFF.key()
                + " = "
                + TimeUtils.format(initialBackoff)
                + ") must not exceed the max backoff ("
                + RESTART_STRATEGY_EXPONENTIAL_DELAY_MAX_BACKOFF.key()
                + " = "
                + TimeUtils.format(maxBackoff)
                + ").");
      }
      if (!(multiplier > 1.0) || Double.isInfinite(multiplier)) {
        throw invalid(
            s,
            "backoff multiplier",
            RESTART_STRATEGY_EXPONENTIAL_DELAY_BACKOFF_MULTIPLIER,
            "must be a finite number greater than 1",
            String.valueOf(multiplier));
      }
      atLeastOneMilli(
          s,
          "reset backoff threshold",
          RESTART_STRATEGY_EXPONENTIAL_DELAY_RESET_BACKOFF_THRESHOLD,
          resetBackoffThreshold);
      if (!(jitterFactor >= 0.0 && jitterFactor <= 1.0)) {
        throw invalid(
            s,
            "jitter factor",
            RESTART_STRATEGY_EXPONENTIAL_DELAY_JITTER_FACTOR,
            "must be between 0 and 1",
            String.valueOf(jitterFactor));
      }
      atLeast(
          s,
          "attempts before reset backoff",
          RESTART_STRATEGY_EXPONENTIAL_DELAY_ATTEMPTS,
          attemptsBeforeResetBackoff,
          1);
    }

    @Override
    public String type() {
      return RestartStrategyOptions.EXPONENTIAL_DELAY;
    }

    @Override
    public void writeTo(Configuration configuration) {
      configuration.set(RESTART_STRATEGY, type());
      configuration.set(RESTART_STRATEGY_EXPONENTIAL_DELAY_INITIAL_BACKOFF, initialBackoff);
      configuration.set(RESTART_STRATEGY_EXPONENTIAL_DELAY_MAX_BACKOFF, maxBackoff);
      configuration.set(RESTART_STRATEGY_EXPONENTIAL_DELAY_BACKOFF_MULTIPLIER, multiplier);
      configuration.set(
          RESTART_STRATEGY_EXPONENTIAL_DELAY_RESET_BACKOFF_THRESHOLD, resetBackoffThreshold);
      configuration.set(RESTART_STRATEGY_EXPONENTIAL_DELAY_JITTER_FACTOR, jitterFactor);
      configuration.set(RESTART_STRATEGY_EXPONENTIAL_DELAY_ATTEMPTS, attemptsBeforeResetBackoff);
    }

    @Override
    public String toString() {
      return "exponential-delay (initial backoff "
          + TimeUtils.format(initialBackoff)
          + ", max backoff "
          + TimeUtils.format(maxBackoff)
          + ", multiplier "
          + multiplier
          + ", reset after "
          + TimeUtils.format(resetBackoffThreshold)
          + ", jitter "
          + jitterFactor
          + (attemptsBeforeResetBackoff == Integer.MAX_VALUE
              ? ""
              : ", " + attemptsBeforeResetBackoff + " attempts before reset")
          + ")";
    }
  }

  /** See {@link RestartStrategy#failureRate}. */
  record FailureRate(int maxFailuresPerInterval, Duration failureRateInterval, Duration delay)
      implements RestartStrategy {
    public FailureRate {
      String s = "failure-rate";
      atLeast(
          s,
          "max failures per interval",
          RESTART_STRATEGY_FAILURE_RATE_MAX_FAILURES_PER_INTERVAL,
          maxFailuresPerInterval,
          1);
      atLeastOneMilli(
          s,
          "failure rate interval",
          RESTART_STRATEGY_FAILURE_RATE_FAILURE_RATE_INTERVAL,
          failureRateInterval);
      notNegative(s, "delay", RESTART_STRATEGY_FAILURE_RATE_DELAY, delay);
    }

    @Override
    public String type() {
      return RestartStrategyOptions.FAILURE_RATE;
    }

    @Override
    public void writeTo(Configuration configuration) {
      configuration.set(RESTART_STRATEGY, type());
      configuration.set(
          RESTART_STRATEGY_FAILURE_RATE_MAX_FAILURES_PER_INTERVAL, maxFailuresPerInterval);
      configuration.set(RESTART_STRATEGY_FAILURE_RATE_FAILURE_RATE_INTERVAL, failureRateInterval);
      configuration.set(RESTART_STRATEGY_FAILURE_RATE_DELAY, delay);
    }

    @Override
    public String toString() {
      return "failure-rate (at most "
          + maxFailuresPerInterval
          + " failures per "
          + TimeUtils.format(failureRateInterval)
          + ", "
          + TimeUtils.format(delay)
          + " delay)";
    }
  }

  // Argument checks whose messages name the strategy, the parameter and its key.

  private static IllegalArgumentException invalid(
      String strategy, String what, ConfigOption<?> option, String rule, String value) {
    return new IllegalArgumentException(
        "Invalid "
            + strategy
            + " restart strategy: the "
            + what
            + " ("
            + option.key()
            + ") "
            + rule
            + ", but was "
            + value
            + ".");
  }

  private static void atLeast(
      String strategy, String what, ConfigOption<Integer> option, int value, int min) {
    if (value < min) {
      throw invalid(strategy, what, option, "must be at least " + min, String.valueOf(value));
    }
  }

  private static void notNegative(
      String strategy, String what, ConfigOption<Duration> option, Duration value) {
    Objects.requireNonNull(value, () -> option.key() + " must not be null");
    if (value.isNegative()) {
      throw invalid(strategy, what, option, "must not be negative", TimeUtils.format(value));
    }
  }

  private static void atLeastOneMilli(
      String strategy, String what, ConfigOption<Duration> option, Duration value) {
    Objects.requireNonNull(value, () -> option.key() + " must not be null");
    if (value.toMillis() < 1) {
      throw invalid(strategy, what, option, "must be at least 1 ms", TimeUtils.format(value));
    }
  }
}

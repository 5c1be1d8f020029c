package io.weir.api.config;

import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The options of the restart strategy, with Flink 2.x's keys, defaults and constant names. {@link
 * io.weir.api.RestartStrategy} is the typed value a job sets and reads them through.
 */
public final class RestartStrategyOptions {

  private RestartStrategyOptions() {}

  /** Canonical value of {@link #RESTART_STRATEGY}: a failure fails the job. */
  public static final String NONE = "none";

  /** Canonical value of {@link #RESTART_STRATEGY}: a fixed number of restarts, a fixed delay. */
  public static final String FIXED_DELAY = "fixed-delay";

  /** Canonical value of {@link #RESTART_STRATEGY}: growing delays, reset after a calm period. */
  public static final String EXPONENTIAL_DELAY = "exponential-delay";

  /** Canonical value of {@link #RESTART_STRATEGY}: restarts while failures are rare enough. */
  public static final String FAILURE_RATE = "failure-rate";

  /** Every accepted spelling of a restart strategy type, to its canonical value (Flink's list). */
  private static final Map<String, String> TYPE_ALIASES =
      Map.of(
          "none", NONE,
          "disable", NONE,
          "off", NONE,
          "fixed-delay", FIXED_DELAY,
          "fixeddelay", FIXED_DELAY,
          "exponential-delay", EXPONENTIAL_DELAY,
          "exponentialdelay", EXPONENTIAL_DELAY,
          "failure-rate", FAILURE_RATE,
          "failurerate", FAILURE_RATE);

  /** The accepted spellings, in the order an error message lists them. */
  public static final List<String> ACCEPTED_TYPES =
      List.of(
          "none",
          "disable",
          "off",
          "fixed-delay",
          "fixeddelay",
          "exponential-delay",
          "exponentialdelay",
          "failure-rate",
          "failurerate");

  /**
   * The restart strategy. Reading it yields the canonical value ({@link #NONE}, {@link
   * #FIXED_DELAY}, {@link #EXPONENTIAL_DELAY}, {@link #FAILURE_RATE}); an unknown value fails with
   * the key, the value and the accepted values. Unset: {@code exponential-delay} when checkpointing
   * is on, {@code none} when it is off.
   */
  public static final ConfigOption<String> RESTART_STRATEGY =
      new ConfigOption<>(
              "restart-strategy.type", null, RestartStrategyOptions::canonicalType, "", List.of())
          .withDescription(
              "What happens when the job fails: none | fixed-delay | exponential-delay |"
                  + " failure-rate. Unset: exponential-delay with checkpointing, none without.")
          .withDeprecatedKeys("restart-strategy");

  public static final ConfigOption<Integer> RESTART_STRATEGY_FIXED_DELAY_ATTEMPTS =
      ConfigOptions.key("restart-strategy.fixed-delay.attempts")
          .intType()
          .defaultValue(1)
          .withDescription("fixed-delay: restarts before the job is declared failed.");

  public static final ConfigOption<Duration> RESTART_STRATEGY_FIXED_DELAY_DELAY =
      ConfigOptions.key("restart-strategy.fixed-delay.delay")
          .durationType()
          .defaultValue(Duration.ofSeconds(1))
          .withDescription("fixed-delay: time between a failure and the restart.");

  public static final ConfigOption<Duration> RESTART_STRATEGY_EXPONENTIAL_DELAY_INITIAL_BACKOFF =
      ConfigOptions.key("restart-strategy.exponential-delay.initial-backoff")
          .durationType()
          .defaultValue(Duration.ofSeconds(1))
          .withDescription("exponential-delay: delay before the first restart.");

  public static final ConfigOption<Duration> RESTART_STRATEGY_EXPONENTIAL_DELAY_MAX_BACKOFF =
      ConfigOptions.key("restart-strategy.exponential-delay.max-backoff")
          .durationType()
          .defaultValue(Duration.ofMinutes(1))
          .withDescription("exponential-delay: the longest delay between restarts.");

  public static final ConfigOption<Double> RESTART_STRATEGY_EXPONENTIAL_DELAY_BACKOFF_MULTIPLIER =
      doubleOption("restart-strategy.exponential-delay.backoff-multiplier", 1.5)
          .withDescription(
              "exponential-delay: the delay is multiplied by this after each failure.");

  public static final ConfigOption<Duration>
      RESTART_STRATEGY_EXPONENTIAL_DELAY_RESET_BACKOFF_THRESHOLD =
          ConfigOptions.key("restart-strategy.exponential-delay.reset-backoff-threshold")
              .durationType()
              .defaultValue(Duration.ofHours(1))
              .withDescription(
                  "exponential-delay: how long the job must run without failure for the delay"
                      + " and the attempt count to start over.");

  public static final ConfigOption<Double> RESTART_STRATEGY_EXPONENTIAL_DELAY_JITTER_FACTOR =
      doubleOption("restart-strategy.exponential-delay.jitter-factor", 0.1)
          .withDescription(
              "exponential-delay: up to this fraction of the delay is randomly added or"
                  + " subtracted, so that many jobs do not restart in step (0 to 1).");

  public static final ConfigOption<Integer> RESTART_STRATEGY_EXPONENTIAL_DELAY_ATTEMPTS =
      ConfigOptions.key("restart-strategy.exponential-delay.attempts-before-reset-backoff")
          .intType()
          .defaultValue(Integer.MAX_VALUE)
          .withDescription(
              "exponential-delay: restarts before the job is declared failed; the count starts"
                  + " over when the delay is reset.");

  public static final ConfigOption<Integer>
      RESTART_STRATEGY_FAILURE_RATE_MAX_FAILURES_PER_INTERVAL =
          ConfigOptions.key("restart-strategy.failure-rate.max-failures-per-interval")
              .intType()
              .defaultValue(1)
              .withDescription(
                  "failure-rate: most failures within one interval that still allow a restart.");

  public static final ConfigOption<Duration> RESTART_STRATEGY_FAILURE_RATE_FAILURE_RATE_INTERVAL =
      ConfigOptions.key("restart-strategy.failure-rate.failure-rate-interval")
          .durationType()
          .defaultValue(Duration.ofMinutes(1))
          .withDescription("failure-rate: the window in which failures are counted.");

  public static final ConfigOption<Duration> RESTART_STRATEGY_FAILURE_RATE_DELAY =
      ConfigOptions.key("restart-strategy.failure-rate.delay")
          .durationType()
          .defaultValue(Duration.ofSeconds(1))
          .withDescription("failure-rate: time between a failure and the restart.");

  /** The canonical restart strategy type of {@code text}, or an error listing the accepted ones. */
  public static String canonicalType(String text) {
    String canonical = TYPE_ALIASES.get(text.trim().toLowerCase(Locale.ROOT));
    if (canonical == null) {
      throw new IllegalArgumentException(
          "unknown restart strategy; expected one of " + String.join(", ", ACCEPTED_TYPES));
    }
    return canonical;
  }

  private static ConfigOption<Double> doubleOption(String key, double defaultValue) {
    return new ConfigOption<>(key, defaultValue, Double::valueOf, "", List.of());
  }
}

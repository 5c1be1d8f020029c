package io.weir.runtime.recovery;

import io.weir.api.CheckpointConfig;
import io.weir.api.RestartStrategy;
import io.weir.api.config.Configuration;
import io.weir.api.config.RestartStrategyOptions;
import java.util.Objects;
import java.util.Random;

/** Builds the {@link RestartBackoffStrategy} of a job from its configuration. */
public final class RestartStrategies {

  private RestartStrategies() {}

  /**
   * The restart strategy {@code configuration} asks for. An explicit {@code restart-strategy.type}
   * wins; unset, it is exponential-delay when checkpointing is enabled and none when not (Flink
   * 2.x). {@code random} draws the jitter of exponential-delay; pass a seeded one in tests.
   *
   * @throws IllegalArgumentException for an unknown type (naming the key, the value and the
   *     accepted values) or an invalid parameter (naming its key)
   */
  public static RestartBackoffStrategy fromConfiguration(
      Configuration configuration, boolean checkpointingEnabled, Random random) {
    return create(
        RestartStrategy.fromConfiguration(configuration, checkpointingEnabled),
        random,
        configuration.contains(RestartStrategyOptions.RESTART_STRATEGY));
  }

  /**
   * The restart strategy of a job with {@code configuration}: as above, with checkpointing on or
   * off as {@link CheckpointConfig#isCheckpointingEnabled(Configuration)} says.
   */
  public static RestartBackoffStrategy fromConfiguration(
      Configuration configuration, Random random) {
    return fromConfiguration(
        configuration, CheckpointConfig.isCheckpointingEnabled(configuration), random);
  }

  /** The decision logic of {@code strategy}. */
  public static RestartBackoffStrategy create(RestartStrategy strategy, Random random) {
    return create(strategy, random, true);
  }

  /**
   * The decision logic of {@code strategy}; {@code explicit} is false when nobody chose it (the
   * default of a job without checkpoints), so that a failure message may say how to get restarts.
   */
  private static RestartBackoffStrategy create(
      RestartStrategy strategy, Random random, boolean explicit) {
    Objects.requireNonNull(strategy, "strategy");
    Objects.requireNonNull(random, "random");
    if (strategy instanceof RestartStrategy.FixedDelay fixed) {
      return new FixedDelayRestartBackoffStrategy(fixed);
    }
    if (strategy instanceof RestartStrategy.ExponentialDelay exponential) {
      return new ExponentialDelayRestartBackoffStrategy(exponential, random);
    }
    if (strategy instanceof RestartStrategy.FailureRate rate) {
      return new FailureRateRestartBackoffStrategy(rate);
    }
    return new NoRestartBackoffStrategy(explicit);
  }
}

package io.weir.runtime.recovery;

import io.weir.api.RestartStrategy;
import io.weir.api.config.Configuration;
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
    return create(RestartStrategy.fromConfiguration(configuration, checkpointingEnabled), random);
  }

  /** The decision logic of {@code strategy}. */
  public static RestartBackoffStrategy create(RestartStrategy strategy, Random random) {
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
    return new NoRestartBackoffStrategy();
  }
}

package io.weir.runtime.recovery;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.weir.api.RestartStrategy;
import io.weir.api.config.Configuration;
import java.time.Duration;
import java.util.Random;
import org.junit.jupiter.api.Test;

class RestartStrategiesTest {

  private static RestartBackoffStrategy from(Configuration conf, boolean checkpointing) {
    return RestartStrategies.fromConfiguration(conf, checkpointing, new Random(42));
  }

  @Test
  void withoutCheckpointingAndWithoutATypeAFailureFailsTheJob() {
    RestartBackoffStrategy s = from(new Configuration(), false);
    assertThat(s).isInstanceOf(NoRestartBackoffStrategy.class);
    s.notifyFailure(0);
    assertThat(s.canRestart()).isFalse();
    assertThat(s.describe())
        .startsWith("none")
        .contains("restart-strategy.type")
        .contains("enable checkpointing");
  }

  @Test
  void withCheckpointingAndWithoutATypeTheStrategyIsExponentialDelayWithFlinksDefaults() {
    RestartBackoffStrategy s = from(new Configuration(), true);
    assertThat(s).isInstanceOf(ExponentialDelayRestartBackoffStrategy.class);
    assertThat(s.describe()).startsWith(RestartStrategy.exponentialDelay().toString());
    s.notifyFailure(0);
    assertThat(s.canRestart()).isTrue();
    // 1 s initial backoff with 10 % jitter, never below the initial backoff.
    assertThat(s.getBackoffMillis()).isBetween(1000L, 1100L);
  }

  @Test
  void anExplicitTypeWinsWhateverTheCheckpointing() {
    Configuration fixed =
        new Configuration()
            .setString("restart-strategy.type", "fixed-delay")
            .setString("restart-strategy.fixed-delay.attempts", "2")
            .setString("restart-strategy.fixed-delay.delay", "250 ms");
    for (boolean checkpointing : new boolean[] {false, true}) {
      RestartBackoffStrategy s = from(fixed, checkpointing);
      assertThat(s).isInstanceOf(FixedDelayRestartBackoffStrategy.class);
      assertThat(s.getBackoffMillis()).isEqualTo(250);
    }
    Configuration none = new Configuration().setString("restart-strategy.type", "disable");
    assertThat(from(none, true)).isInstanceOf(NoRestartBackoffStrategy.class);
    Configuration rate = new Configuration().setString("restart-strategy.type", "failurerate");
    assertThat(from(rate, false)).isInstanceOf(FailureRateRestartBackoffStrategy.class);
    Configuration exp = new Configuration().setString("restart-strategy", "exponentialdelay");
    assertThat(from(exp, false)).isInstanceOf(ExponentialDelayRestartBackoffStrategy.class);
  }

  @Test
  void anUnknownTypeNamesTheKeyTheValueAndTheAcceptedValues() {
    Configuration conf = new Configuration().setString("restart-strategy.type", "retry");
    assertThatThrownBy(() -> from(conf, true))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "Invalid value 'retry' for configuration key 'restart-strategy.type': unknown restart"
                + " strategy; expected one of none, disable, off, fixed-delay, fixeddelay,"
                + " exponential-delay, exponentialdelay, failure-rate, failurerate");
  }

  @Test
  void anInvalidParameterNamesItsKey() {
    Configuration conf =
        new Configuration()
            .setString("restart-strategy.type", "failure-rate")
            .setString("restart-strategy.failure-rate.max-failures-per-interval", "0");
    assertThatThrownBy(() -> from(conf, false))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("restart-strategy.failure-rate.max-failures-per-interval")
        .hasMessageContaining("but was 0");
  }

  @Test
  void createMapsEachApiValueToItsLogic() {
    Random r = new Random(1);
    assertThat(RestartStrategies.create(RestartStrategy.none(), r))
        .isInstanceOf(NoRestartBackoffStrategy.class);
    assertThat(RestartStrategies.create(RestartStrategy.fixedDelay(1, Duration.ZERO), r))
        .isInstanceOf(FixedDelayRestartBackoffStrategy.class);
    assertThat(RestartStrategies.create(RestartStrategy.exponentialDelay(), r))
        .isInstanceOf(ExponentialDelayRestartBackoffStrategy.class);
    assertThat(
            RestartStrategies.create(
                RestartStrategy.failureRate(1, Duration.ofMinutes(1), Duration.ZERO), r))
        .isInstanceOf(FailureRateRestartBackoffStrategy.class);
  }
}

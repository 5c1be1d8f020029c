package io.weir.runtime.network;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.weir.api.config.Configuration;
import io.weir.api.config.CoreOptions;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** A channel's depth: from the buffers its consumer took, between the configured bounds. */
class CreditDepthTest {

  private static final long PERIOD = CreditDepth.PERIOD_NANOS;
  private final CreditDepth depth = new CreditDepth(4, 16, Duration.ofMillis(20).toNanos());

  @Test
  void growsAtOnceToWhatTheConsumerTakesInTheTarget() {
    assertThat(depth.next(4, 40, PERIOD)).as("400 a second: 8 in 20 ms").isEqualTo(8);
    assertThat(depth.next(4, 41, PERIOD)).as("rounded up").isEqualTo(9);
    assertThat(depth.next(4, 10_000, PERIOD)).as("at most the maximum").isEqualTo(16);
    assertThat(depth.next(4, 40, 2 * PERIOD)).as("over a longer period").isEqualTo(4);
  }

  @Test
  void neverFallsBelowTheMinimumAndShrinksAtMostByHalfAPeriod() {
    assertThat(depth.next(4, 0, PERIOD)).isEqualTo(4);
    assertThat(depth.next(4, 10, PERIOD)).as("2 in 20 ms").isEqualTo(4);
    assertThat(depth.next(16, 0, PERIOD)).isEqualTo(8);
    assertThat(depth.next(8, 0, PERIOD)).isEqualTo(4);
    assertThat(depth.next(16, 30, PERIOD)).as("6 wanted, 8 at most halved").isEqualTo(8);
    assertThat(depth.next(10, 30, PERIOD)).as("6 wanted, more than half of 10").isEqualTo(6);
  }

  @Test
  void theConfigurationsDefaultsGrowFromFourToSixteenCreditsIn20Milliseconds() {
    CreditDepth fromDefaults = CreditDepth.of(new Configuration());
    assertThat(fromDefaults).isEqualTo(depth);
    assertThat(fromDefaults.adaptive()).isTrue();
  }

  @Test
  void aFixedDepthOrAZeroTargetKeepsEveryChannelAtTheMinimum() {
    assertThat(CreditDepth.fixed(4).adaptive()).isFalse();
    Configuration conf = new Configuration();
    conf.set(CoreOptions.IN_FLIGHT_TARGET, Duration.ZERO);
    assertThat(CreditDepth.of(conf).adaptive()).isFalse();
    conf = new Configuration();
    conf.set(CoreOptions.BUFFERS_PER_CHANNEL, 8);
    conf.set(CoreOptions.MAX_BUFFERS_PER_CHANNEL, 8);
    assertThat(CreditDepth.of(conf).adaptive()).isFalse();
  }

  @Test
  void impossibleSettingsAreRefusedNamingTheirKeys() {
    Configuration fewer = new Configuration();
    fewer.set(CoreOptions.MAX_BUFFERS_PER_CHANNEL, 2);
    assertThatThrownBy(() -> CreditDepth.of(fewer))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "taskmanager.network.memory.max-buffers-per-channel must be at least"
                + " taskmanager.network.memory.buffers-per-channel (4), but was 2; set it to 4"
                + " for a fixed number of credits per channel");

    Configuration none = new Configuration();
    none.set(CoreOptions.BUFFERS_PER_CHANNEL, 0);
    assertThatThrownBy(() -> CreditDepth.of(none))
        .hasMessage("taskmanager.network.memory.buffers-per-channel must be at least 1, but was 0");

    Configuration negative = new Configuration();
    negative.set(CoreOptions.IN_FLIGHT_TARGET, Duration.ofMillis(-5));
    assertThatThrownBy(() -> CreditDepth.of(negative))
        .hasMessageStartingWith("taskmanager.network.memory.in-flight-target must not be negative")
        .hasMessageContaining("0 keeps every channel at");
  }
}

package io.weir.runtime.recovery;

import static org.assertj.core.api.Assertions.assertThat;

import io.weir.api.RestartStrategy;
import java.time.Duration;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import org.junit.jupiter.api.Test;

class FixedDelayRestartBackoffStrategyTest {

  private static FixedDelayRestartBackoffStrategy strategy(int attempts, Duration delay) {
    return new FixedDelayRestartBackoffStrategy(RestartStrategy.fixedDelay(attempts, delay));
  }

  @Test
  void restartsAttemptsTimesThenTheNextFailureFailsTheJob() {
    FixedDelayRestartBackoffStrategy s = strategy(3, Duration.ofSeconds(1));
    assertThat(s.canRestart()).isTrue();
    for (int failure = 1; failure <= 3; failure++) {
      s.notifyFailure(failure * 10_000L);
      assertThat(s.canRestart()).as("failure %d", failure).isTrue();
      assertThat(s.getBackoffMillis()).isEqualTo(1000);
    }
    assertThat(s.describe()).isEqualTo("fixed-delay (3 attempts, 1 s delay): 3 of 3 restarts used");
    s.notifyFailure(40_000);
    assertThat(s.canRestart()).isFalse();
    assertThat(s.describe())
        .isEqualTo(
            "fixed-delay (3 attempts, 1 s delay): 4 failures exceed"
                + " restart-strategy.fixed-delay.attempts = 3");
  }

  @Test
  void zeroAttemptsMeansTheFirstFailureFailsTheJob() {
    FixedDelayRestartBackoffStrategy s = strategy(0, Duration.ZERO);
    s.notifyFailure(0);
    assertThat(s.canRestart()).isFalse();
  }

  @Test
  void timeDoesNotMatterOnlyTheCount() {
    FixedDelayRestartBackoffStrategy s = strategy(1, Duration.ofMillis(5));
    s.notifyFailure(0);
    s.notifyFailure(Long.MAX_VALUE / 2);
    assertThat(s.canRestart()).isFalse();
  }

  @Property
  void canRestartExactlyWhileFailuresDoNotExceedAttempts(
      @ForAll @IntRange(min = 0, max = 40) int attempts,
      @ForAll @IntRange(min = 0, max = 60) int failures) {
    FixedDelayRestartBackoffStrategy s = strategy(attempts, Duration.ofMillis(7));
    for (int i = 0; i < failures; i++) {
      s.notifyFailure(i);
    }
    assertThat(s.canRestart()).isEqualTo(failures <= attempts);
    assertThat(s.getBackoffMillis()).isEqualTo(7);
  }
}

package io.weir.runtime.recovery;

import static org.assertj.core.api.Assertions.assertThat;

import io.weir.api.RestartStrategy;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.LongRange;
import net.jqwik.api.constraints.Size;
import org.junit.jupiter.api.Test;

class FailureRateRestartBackoffStrategyTest {

  private static final long SECOND = 1000;

  private static FailureRateRestartBackoffStrategy strategy(int max, Duration interval) {
    return new FailureRateRestartBackoffStrategy(
        RestartStrategy.failureRate(max, interval, Duration.ofSeconds(1)));
  }

  @Test
  void moreThanMaxFailuresWithinTheIntervalFailTheJob() {
    FailureRateRestartBackoffStrategy s = strategy(2, Duration.ofMinutes(1));
    s.notifyFailure(0);
    assertThat(s.canRestart()).isTrue();
    assertThat(s.getBackoffMillis()).isEqualTo(1000);
    s.notifyFailure(10 * SECOND);
    assertThat(s.canRestart()).isTrue();
    s.notifyFailure(20 * SECOND);
    assertThat(s.canRestart()).isFalse();
    assertThat(s.describe())
        .isEqualTo(
            "failure-rate (at most 2 failures per 1 min, 1 s delay): 3 failures within 20 s"
                + " exceed restart-strategy.failure-rate.max-failures-per-interval = 2 per"
                + " restart-strategy.failure-rate.failure-rate-interval = 1 min");
  }

  @Test
  void failuresOlderThanTheIntervalNoLongerCount() {
    FailureRateRestartBackoffStrategy s = strategy(2, Duration.ofMinutes(1));
    s.notifyFailure(0);
    s.notifyFailure(30 * SECOND);
    s.notifyFailure(60 * SECOND + 1); // the failure at 0 has left the window
    assertThat(s.canRestart()).isTrue();
    s.notifyFailure(70 * SECOND); // 30 s, 60.001 s and 70 s lie within one minute
    assertThat(s.canRestart()).isFalse();
  }

  @Test
  void theWindowIncludesItsBoundary() {
    FailureRateRestartBackoffStrategy s = strategy(2, Duration.ofMinutes(1));
    s.notifyFailure(0);
    s.notifyFailure(30 * SECOND);
    s.notifyFailure(60 * SECOND);
    assertThat(s.canRestart()).isFalse();
  }

  @Test
  void flinksDefaultOfOneFailurePerMinute() {
    FailureRateRestartBackoffStrategy s = strategy(1, Duration.ofMinutes(1));
    s.notifyFailure(0);
    assertThat(s.canRestart()).isTrue();
    s.notifyFailure(61 * SECOND);
    assertThat(s.canRestart()).isTrue();
    s.notifyFailure(90 * SECOND);
    assertThat(s.canRestart()).isFalse();
  }

  @Property
  void agreesWithCountingTheFailuresInTheWindowOfTheLatest(
      @ForAll @IntRange(min = 1, max = 6) int max,
      @ForAll @LongRange(min = 1, max = 1_000) long interval,
      @ForAll @Size(min = 1, max = 40) List<@LongRange(min = 0, max = 400) Long> gaps) {
    FailureRateRestartBackoffStrategy s = strategy(max, Duration.ofMillis(interval));
    List<Long> times = new ArrayList<>();
    long now = 0;
    for (long gap : gaps) {
      now += gap;
      times.add(now);
      s.notifyFailure(now);
      long latest = now;
      long inWindow = times.stream().filter(t -> latest - t <= interval).count();
      assertThat(s.canRestart()).isEqualTo(inWindow <= max);
    }
  }
}

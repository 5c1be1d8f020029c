package io.weir.runtime.recovery;

import static org.assertj.core.api.Assertions.assertThat;

import io.weir.api.RestartStrategy;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.DoubleRange;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.LongRange;
import org.junit.jupiter.api.Test;

class ExponentialDelayRestartBackoffStrategyTest {

  private static final long MINUTE = 60_000;

  /** 1 s doubling up to 10 s, reset after 1 min of running, no jitter. */
  private static ExponentialDelayRestartBackoffStrategy doubling(int attemptsBeforeReset) {
    return new ExponentialDelayRestartBackoffStrategy(
        RestartStrategy.exponentialDelay(
            Duration.ofSeconds(1),
            Duration.ofSeconds(10),
            2.0,
            Duration.ofMinutes(1),
            0.0,
            attemptsBeforeReset),
        new Random(0));
  }

  /** Fails {@code count} times, each time {@code runMillis} after the previous restart. */
  private static List<Long> failRepeatedly(
      RestartBackoffStrategy s, long start, int count, long runMillis) {
    List<Long> backoffs = new ArrayList<>();
    long now = start;
    for (int i = 0; i < count; i++) {
      s.notifyFailure(now);
      backoffs.add(s.getBackoffMillis());
      now += s.getBackoffMillis() + runMillis;
    }
    return backoffs;
  }

  @Test
  void backoffGrowsByTheMultiplierUpToTheMax() {
    ExponentialDelayRestartBackoffStrategy s = doubling(Integer.MAX_VALUE);
    assertThat(failRepeatedly(s, 1_000_000, 7, 100))
        .containsExactly(1000L, 2000L, 4000L, 8000L, 10_000L, 10_000L, 10_000L);
    assertThat(s.canRestart()).isTrue();
  }

  @Test
  void flinksDefaultsGiveTheDocumentedSequence() {
    ExponentialDelayRestartBackoffStrategy s =
        new ExponentialDelayRestartBackoffStrategy(
            RestartStrategy.exponentialDelay(
                Duration.ofSeconds(1), Duration.ofMinutes(1), 1.5, Duration.ofHours(1), 0.0),
            new Random(0));
    assertThat(failRepeatedly(s, 0, 12, 0))
        .containsExactly(
            1000L, 1500L, 2250L, 3375L, 5062L, 7593L, 11_390L, 17_085L, 25_628L, 38_443L, 57_665L,
            60_000L);
  }

  @Test
  void backoffStartsOverAfterTheJobRanForTheResetThreshold() {
    ExponentialDelayRestartBackoffStrategy s = doubling(Integer.MAX_VALUE);
    s.notifyFailure(0); // restart at 1 s
    s.notifyFailure(1_000 + 10); // 2 s backoff, restart at 3 010
    assertThat(s.getBackoffMillis()).isEqualTo(2000);
    s.notifyFailure(3_010 + MINUTE - 1); // one ms short of the threshold: keeps growing
    assertThat(s.getBackoffMillis()).isEqualTo(4000);
    long restartedAt = 3_010 + MINUTE - 1 + 4000;
    s.notifyFailure(restartedAt + MINUTE); // ran exactly the threshold: start over
    assertThat(s.getBackoffMillis()).isEqualTo(1000);
    s.notifyFailure(restartedAt + MINUTE + 1000 + 5);
    assertThat(s.getBackoffMillis()).isEqualTo(2000);
  }

  @Test
  void attemptsBeforeResetLimitTheRestartsUntilAReset() {
    ExponentialDelayRestartBackoffStrategy s = doubling(3);
    failRepeatedly(s, 0, 3, 10);
    assertThat(s.canRestart()).isTrue();
    assertThat(s.describe())
        .isEqualTo(
            "exponential-delay (initial backoff 1 s, max backoff 10 s, multiplier 2.0, reset"
                + " after 1 min, jitter 0.0, 3 attempts before reset): restart 3 since the last"
                + " reset, after 4000 ms");

    ExponentialDelayRestartBackoffStrategy exhausted = doubling(3);
    failRepeatedly(exhausted, 0, 4, 10);
    assertThat(exhausted.canRestart()).isFalse();
    assertThat(exhausted.describe())
        .endsWith(
            ": 4 failures without a reset exceed"
                + " restart-strategy.exponential-delay.attempts-before-reset-backoff = 3");
  }

  @Test
  void aResetAlsoRenewsTheAttempts() {
    ExponentialDelayRestartBackoffStrategy s = doubling(2);
    s.notifyFailure(0); // restart at 1 000
    s.notifyFailure(2_000); // restart at 4 000
    assertThat(s.canRestart()).isTrue();
    s.notifyFailure(4_000 + MINUTE);
    assertThat(s.canRestart()).isTrue();
    assertThat(s.getBackoffMillis()).isEqualTo(1000);
  }

  @Test
  void jitterComesFromTheInjectedRandomSoASeedReplaysIt() {
    RestartStrategy.ExponentialDelay settings =
        RestartStrategy.exponentialDelay(
            Duration.ofSeconds(1), Duration.ofMinutes(1), 2.0, Duration.ofHours(1), 0.25);
    List<Long> first =
        failRepeatedly(
            new ExponentialDelayRestartBackoffStrategy(settings, new Random(7)), 0, 8, 0);
    List<Long> second =
        failRepeatedly(
            new ExponentialDelayRestartBackoffStrategy(settings, new Random(7)), 0, 8, 0);
    assertThat(first).isEqualTo(second);
    long base = 1000;
    for (long backoff : first) {
      long bounded = Math.min(base, 60_000);
      assertThat(backoff)
          .isBetween(
              Math.max(1000, bounded - bounded / 4), Math.min(60_000, bounded + bounded / 4));
      base *= 2;
    }
    assertThat(first)
        .as("jitter moves some delays off the exact powers of two")
        .isNotEqualTo(List.of(1000L, 2000L, 4000L, 8000L, 16_000L, 32_000L, 60_000L, 60_000L));
  }

  @Property
  void backoffStaysWithinInitialAndMax(
      @ForAll @LongRange(min = 1, max = 5_000) long initial,
      @ForAll @LongRange(min = 0, max = 100_000) long extra,
      @ForAll @DoubleRange(min = 1.01, max = 10) double multiplier,
      @ForAll @DoubleRange(min = 0, max = 1) double jitter,
      @ForAll @IntRange(min = 1, max = 80) int failures,
      @ForAll long seed) {
    RestartStrategy.ExponentialDelay settings =
        RestartStrategy.exponentialDelay(
            Duration.ofMillis(initial),
            Duration.ofMillis(initial + extra),
            multiplier,
            Duration.ofHours(1),
            jitter);
    ExponentialDelayRestartBackoffStrategy s =
        new ExponentialDelayRestartBackoffStrategy(settings, new Random(seed));
    for (long backoff : failRepeatedly(s, 0, failures, 1)) {
      assertThat(backoff).isBetween(initial, initial + extra);
    }
    assertThat(s.canRestart()).isTrue();
  }

  @Property
  void withoutJitterBackoffNeverShrinksUntilAReset(
      @ForAll @LongRange(min = 1, max = 5_000) long initial,
      @ForAll @DoubleRange(min = 1.01, max = 4) double multiplier,
      @ForAll @IntRange(min = 1, max = 60) int failures) {
    ExponentialDelayRestartBackoffStrategy s =
        new ExponentialDelayRestartBackoffStrategy(
            RestartStrategy.exponentialDelay(
                Duration.ofMillis(initial),
                Duration.ofMinutes(10),
                multiplier,
                Duration.ofHours(1),
                0.0),
            new Random(0));
    List<Long> backoffs = failRepeatedly(s, 0, failures, 0);
    assertThat(backoffs.get(0)).isEqualTo(initial);
    assertThat(backoffs).isSorted();
  }
}

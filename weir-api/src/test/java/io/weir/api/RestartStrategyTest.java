package io.weir.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.weir.api.config.Configuration;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class RestartStrategyTest {

  @Test
  void eachStrategyWritesFlinksKeysAndReadsBackEqual() {
    RestartStrategy[] strategies = {
      RestartStrategy.none(),
      RestartStrategy.fixedDelay(3, Duration.ofSeconds(1)),
      RestartStrategy.exponentialDelay(),
      RestartStrategy.exponentialDelay(
          Duration.ofMillis(10), Duration.ofSeconds(2), 2.0, Duration.ofMinutes(5), 0.0),
      RestartStrategy.exponentialDelay(
          Duration.ofMillis(10), Duration.ofSeconds(2), 2.0, Duration.ofMinutes(5), 0.25, 7),
      RestartStrategy.failureRate(2, Duration.ofMinutes(5), Duration.ofMillis(300)),
    };
    for (RestartStrategy strategy : strategies) {
      Configuration conf = new Configuration();
      strategy.writeTo(conf);
      // Through text only, as from a YAML file.
      Configuration text = new Configuration();
      conf.toMap().forEach(text::setString);
      assertThat(RestartStrategy.fromConfiguration(text, false)).isEqualTo(strategy);
      assertThat(RestartStrategy.fromConfiguration(text, true)).isEqualTo(strategy);
    }
  }

  @Test
  void fixedDelayWritesTheKeysAUserWouldWrite() {
    Configuration conf = new Configuration();
    RestartStrategy.fixedDelay(3, Duration.ofSeconds(10)).writeTo(conf);
    assertThat(conf.toMap())
        .containsOnly(
            java.util.Map.entry("restart-strategy.type", "fixed-delay"),
            java.util.Map.entry("restart-strategy.fixed-delay.attempts", "3"),
            java.util.Map.entry("restart-strategy.fixed-delay.delay", "10 s"));
  }

  @Test
  void exponentialDelayDefaultsAreFlink2s() {
    RestartStrategy.ExponentialDelay d = RestartStrategy.exponentialDelay();
    assertThat(d.initialBackoff()).isEqualTo(Duration.ofSeconds(1));
    assertThat(d.maxBackoff()).isEqualTo(Duration.ofMinutes(1));
    assertThat(d.multiplier()).isEqualTo(1.5);
    assertThat(d.resetBackoffThreshold()).isEqualTo(Duration.ofHours(1));
    assertThat(d.jitterFactor()).isEqualTo(0.1);
    assertThat(d.attemptsBeforeResetBackoff()).isEqualTo(Integer.MAX_VALUE);
  }

  @Test
  void unsetTypeIsExponentialDelayWithCheckpointingAndNoneWithout() {
    Configuration conf = new Configuration();
    assertThat(RestartStrategy.fromConfiguration(conf, false)).isEqualTo(RestartStrategy.none());
    assertThat(RestartStrategy.fromConfiguration(conf, true))
        .isEqualTo(RestartStrategy.exponentialDelay());

    // Exponential-delay parameters apply to the default choice too.
    conf.setString("restart-strategy.exponential-delay.max-backoff", "10 s");
    assertThat(RestartStrategy.fromConfiguration(conf, true))
        .isInstanceOfSatisfying(
            RestartStrategy.ExponentialDelay.class,
            d -> assertThat(d.maxBackoff()).isEqualTo(Duration.ofSeconds(10)));
  }

  @Test
  void anExplicitTypeWinsOverTheDefault() {
    Configuration conf = new Configuration().setString("restart-strategy.type", "off");
    assertThat(RestartStrategy.fromConfiguration(conf, true)).isEqualTo(RestartStrategy.none());
    conf.setString("restart-strategy.type", "fixeddelay");
    assertThat(RestartStrategy.fromConfiguration(conf, false))
        .isEqualTo(RestartStrategy.fixedDelay(1, Duration.ofSeconds(1)));
    conf.setString("restart-strategy.type", "failure-rate");
    assertThat(RestartStrategy.fromConfiguration(conf, false))
        .isEqualTo(RestartStrategy.failureRate(1, Duration.ofMinutes(1), Duration.ofSeconds(1)));
  }

  @Test
  void anUnknownTypeNamesKeyValueAndAcceptedValues() {
    Configuration conf = new Configuration().setString("restart-strategy.type", "fixed");
    assertThatThrownBy(() -> RestartStrategy.fromConfiguration(conf, true))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("restart-strategy.type")
        .hasMessageContaining("'fixed'")
        .hasMessageContaining("fixed-delay")
        .hasMessageContaining("exponential-delay")
        .hasMessageContaining("failure-rate")
        .hasMessageContaining("none");
  }

  @Test
  void fixedDelayArgumentsAreChecked() {
    assertThatThrownBy(() -> RestartStrategy.fixedDelay(-1, Duration.ofSeconds(1)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "Invalid fixed-delay restart strategy: the attempts"
                + " (restart-strategy.fixed-delay.attempts) must be at least 0, but was -1.");
    assertThatThrownBy(() -> RestartStrategy.fixedDelay(1, Duration.ofMillis(-1)))
        .hasMessage(
            "Invalid fixed-delay restart strategy: the delay (restart-strategy.fixed-delay.delay)"
                + " must not be negative, but was -1 ms.");
    RestartStrategy.fixedDelay(0, Duration.ZERO);
  }

  @Test
  void exponentialDelayArgumentsAreChecked() {
    Duration s = Duration.ofSeconds(1);
    Duration m = Duration.ofMinutes(1);
    assertThatThrownBy(() -> RestartStrategy.exponentialDelay(Duration.ZERO, m, 2, m, 0))
        .hasMessage(
            "Invalid exponential-delay restart strategy: the initial backoff"
                + " (restart-strategy.exponential-delay.initial-backoff) must be at least 1 ms,"
                + " but was 0 ms.");
    assertThatThrownBy(() -> RestartStrategy.exponentialDelay(m, s, 2, m, 0))
        .hasMessage(
            "Invalid exponential-delay restart strategy: the initial backoff"
                + " (restart-strategy.exponential-delay.initial-backoff = 1 min) must not exceed"
                + " the max backoff (restart-strategy.exponential-delay.max-backoff = 1 s).");
    assertThatThrownBy(() -> RestartStrategy.exponentialDelay(s, m, 1.0, m, 0))
        .hasMessageContaining("restart-strategy.exponential-delay.backoff-multiplier")
        .hasMessageContaining("greater than 1, but was 1.0");
    assertThatThrownBy(() -> RestartStrategy.exponentialDelay(s, m, Double.NaN, m, 0))
        .hasMessageContaining("but was NaN");
    assertThatThrownBy(() -> RestartStrategy.exponentialDelay(s, m, 2, Duration.ZERO, 0))
        .hasMessageContaining("restart-strategy.exponential-delay.reset-backoff-threshold");
    assertThatThrownBy(() -> RestartStrategy.exponentialDelay(s, m, 2, m, 1.5))
        .hasMessage(
            "Invalid exponential-delay restart strategy: the jitter factor"
                + " (restart-strategy.exponential-delay.jitter-factor) must be between 0 and 1,"
                + " but was 1.5.");
    assertThatThrownBy(() -> RestartStrategy.exponentialDelay(s, m, 2, m, -0.1))
        .hasMessageContaining("but was -0.1");
    assertThatThrownBy(() -> RestartStrategy.exponentialDelay(s, m, 2, m, 0, 0))
        .hasMessageContaining("restart-strategy.exponential-delay.attempts-before-reset-backoff")
        .hasMessageContaining("at least 1, but was 0");
  }

  @Test
  void failureRateArgumentsAreChecked() {
    assertThatThrownBy(() -> RestartStrategy.failureRate(0, Duration.ofMinutes(1), Duration.ZERO))
        .hasMessage(
            "Invalid failure-rate restart strategy: the max failures per interval"
                + " (restart-strategy.failure-rate.max-failures-per-interval) must be at least 1,"
                + " but was 0.");
    assertThatThrownBy(() -> RestartStrategy.failureRate(1, Duration.ZERO, Duration.ZERO))
        .hasMessageContaining("restart-strategy.failure-rate.failure-rate-interval");
    assertThatThrownBy(
            () -> RestartStrategy.failureRate(1, Duration.ofMinutes(1), Duration.ofSeconds(-1)))
        .hasMessageContaining("restart-strategy.failure-rate.delay")
        .hasMessageContaining("-1 s");
  }

  @Test
  void invalidValuesFromTextAreReportedWithTheirKey() {
    Configuration conf =
        new Configuration()
            .setString("restart-strategy.type", "exponential-delay")
            .setString("restart-strategy.exponential-delay.jitter-factor", "2");
    assertThatThrownBy(() -> RestartStrategy.fromConfiguration(conf, false))
        .hasMessageContaining("restart-strategy.exponential-delay.jitter-factor")
        .hasMessageContaining("2.0");
    conf.setString("restart-strategy.exponential-delay.jitter-factor", "a little");
    assertThatThrownBy(() -> RestartStrategy.fromConfiguration(conf, false))
        .hasMessageContaining("restart-strategy.exponential-delay.jitter-factor")
        .hasMessageContaining("a little");
  }

  @Test
  void toStringIsReadable() {
    assertThat(RestartStrategy.fixedDelay(3, Duration.ofSeconds(1)))
        .hasToString("fixed-delay (3 attempts, 1 s delay)");
    assertThat(RestartStrategy.none()).hasToString("none");
    assertThat(RestartStrategy.failureRate(2, Duration.ofMinutes(5), Duration.ofSeconds(1)))
        .hasToString("failure-rate (at most 2 failures per 5 min, 1 s delay)");
    assertThat(RestartStrategy.exponentialDelay())
        .hasToString(
            "exponential-delay (initial backoff 1 s, max backoff 1 min, multiplier 1.5, reset"
                + " after 60 min, jitter 0.1)");
  }
}

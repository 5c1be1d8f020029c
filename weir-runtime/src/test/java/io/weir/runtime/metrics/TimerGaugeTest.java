package io.weir.runtime.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class TimerGaugeTest {

  private final TimerGauge gauge = new TimerGauge();

  @Test
  void addsUpTheWaitsThatEnded() {
    gauge.markStart(100);
    gauge.markEnd(130);
    gauge.markStart(200);
    gauge.markEnd(210);

    assertThat(gauge.totalNanos(1_000)).isEqualTo(40);
  }

  @Test
  void countsAWaitStillUnderWayUpToTheReadersNow() {
    gauge.markStart(100);
    gauge.markEnd(130);
    gauge.markStart(200);

    assertThat(gauge.totalNanos(250)).isEqualTo(80);
    assertThat(gauge.totalNanos(300)).isEqualTo(130);

    gauge.markEnd(320);
    assertThat(gauge.totalNanos(10_000)).as("ended, the wait no longer grows").isEqualTo(150);
  }

  @Test
  void aSecondStartKeepsTheFirstAndAnEndWithoutStartCountsNothing() {
    gauge.markEnd(50);
    gauge.markStart(100);
    gauge.markStart(150);
    gauge.markEnd(200);

    assertThat(gauge.totalNanos(300)).isEqualTo(100);
  }

  @Test
  void aReaderWhoseClockIsBehindTheStartCountsNoNegativeTime() {
    gauge.markStart(100);

    assertThat(gauge.totalNanos(90)).isZero();
  }
}

package io.weir.cluster.metrics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import org.junit.jupiter.api.Test;

class RateViewTest {

  private static final long SECOND = 1_000_000_000L;

  @Test
  void isZeroUntilTheSecondSample() {
    RateView view = new RateView(3);
    view.update(100, 0);

    assertThat(view.rate()).isZero();
    assertThat(view.measured()).isFalse();
    view.update(100, SECOND);
    assertThat(view.measured()).isTrue();
  }

  @Test
  void averagesOverTheSamplesOfItsWindowOnly() {
    RateView view = new RateView(2);
    view.update(0, 0);
    view.update(500, SECOND);
    assertThat(view.rate()).isCloseTo(500, within(1e-9));

    view.update(1_500, 2 * SECOND);
    assertThat(view.rate()).as("two intervals: 1500 in 2 s").isCloseTo(750, within(1e-9));

    view.update(1_500, 3 * SECOND);
    assertThat(view.rate())
        .as("the first sample left the window: 1000 in 2 s")
        .isCloseTo(500, within(1e-9));

    view.update(1_500, 4 * SECOND);
    assertThat(view.rate()).as("nothing in the last two seconds").isZero();
  }
}

package io.weir.api.metrics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import io.weir.api.source.SourceReaderContext;
import org.junit.jupiter.api.Test;

/** Flink's metric types as a function uses them. */
class MetricsTest {

  @Test
  void aMeterViewsRateIsItsEventsOverItsTimeSpanPerSecond() {
    MeterView meter = new MeterView(new SimpleCounter(), 10); // two updates of 5 s
    meter.markEvent(30);
    meter.update();
    assertThat(meter.getRate()).as("30 events, half of the span seen").isEqualTo(3.0);
    meter.markEvent(70);
    meter.update();
    assertThat(meter.getRate()).as("100 events in 10 s").isEqualTo(10.0);
    meter.update();
    assertThat(meter.getRate()).as("the first 30 fell out of the span").isEqualTo(7.0);
    assertThat(meter.getCount()).isEqualTo(100);
    assertThat(new MeterView(1).getRate()).as("before any update").isZero();
  }

  @Test
  void aHistogramKeepsItsLastValuesAndInterpolatesQuantiles() {
    DescriptiveStatisticsHistogram histogram = new DescriptiveStatisticsHistogram(4);
    assertThat(histogram.getStatistics().size()).isZero();
    assertThat(histogram.getStatistics().getQuantile(0.5)).isNaN();
    for (long v : new long[] {100, 1, 2, 3, 4}) {
      histogram.update(v);
    }
    HistogramStatistics stats = histogram.getStatistics();
    assertThat(histogram.getCount()).isEqualTo(5);
    assertThat(stats.getValues()).as("the oldest gave way").containsExactly(1, 2, 3, 4);
    assertThat(stats.getQuantile(0.5)).isEqualTo(2.5);
    assertThat(stats.getQuantile(0.75)).isCloseTo(3.25, within(1e-9));
    assertThat(stats.getMin()).isEqualTo(1);
    assertThat(stats.getMax()).isEqualTo(4);
    assertThat(stats.getMean()).isEqualTo(2.5);
    assertThat(stats.getStdDev()).isCloseTo(1.2910, within(1e-4));
    assertThatThrownBy(() -> stats.getQuantile(1.5)).hasMessageContaining("[0, 1]");
    assertThatThrownBy(() -> new DescriptiveStatisticsHistogram(0))
        .hasMessageContaining("at least 1");
  }

  @Test
  void aReaderCreatedOutsideAJobHasAGroupThatReportsNothingAndHandsBackItsMetrics() {
    MetricGroup group = new SourceReaderContext(0, 1, 0).metricGroup().addGroup("split", "a");
    Counter counter = group.counter("records");
    counter.inc(3);
    assertThat(counter.getCount()).isEqualTo(3);
    SimpleCounter mine = new SimpleCounter();
    assertThat(group.counter("mine", mine)).isSameAs(mine);
    Histogram histogram = new DescriptiveStatisticsHistogram(8);
    assertThat(group.histogram("sizes", histogram)).isSameAs(histogram);
    assertThat(group.getMetricIdentifier("records")).isEqualTo("records");
  }

  @Test
  void aSimpleCounterCountsBothWays() {
    Counter counter = new SimpleCounter();
    counter.inc();
    counter.inc(10);
    counter.dec();
    counter.dec(3);
    assertThat(counter.getCount()).isEqualTo(7);
  }
}

package io.weir.runtime.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import io.weir.api.functions.TaskInfo;
import io.weir.api.metrics.DescriptiveStatisticsHistogram;
import io.weir.api.metrics.Gauge;
import io.weir.api.metrics.Histogram;
import io.weir.api.metrics.Meter;
import io.weir.api.metrics.MetricGroup;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** A subtask's function metrics as Flink's REST API names and shows them. */
class MetricDumpTest {

  private final UserMetrics registry = new UserMetrics();
  private final MetricGroup group =
      OperatorMetrics.of(
          registry,
          "job",
          new TaskInfo("Source: Orders -> Map", 0, 1, 128, 0),
          "Source: Orders, v1.2",
          "op-1");

  @Test
  void namesAreOperatorScopeAndNameWithFlinksCharactersReplaced() {
    group.counter("records").inc(7);
    group.addGroup("Shards").addGroup("shard", "us.east").counter("late events").inc(2);

    assertThat(MetricDump.of(registry.all()))
        .containsExactly(
            Map.entry("Source__Orders__v1_2.Shards.shard.us_east.late_events", "2"),
            Map.entry("Source__Orders__v1_2.records", "7"));
  }

  @Test
  void eachKindShowsItsValueAsText() {
    group.gauge("lag", (Gauge<Long>) () -> 42L);
    group.gauge("topic", (Gauge<String>) () -> "orders");
    group.gauge("unset", (Gauge<String>) () -> null);
    group.gauge(
        "broken",
        (Gauge<Long>)
            () -> {
              throw new IllegalStateException("not yet");
            });
    group.meter("rate", new FixedMeter(2.5));

    Map<String, String> dump = MetricDump.of(registry.all());

    assertThat(dump)
        .containsEntry("Source__Orders__v1_2.lag", "42")
        .containsEntry("Source__Orders__v1_2.topic", "orders")
        .containsEntry("Source__Orders__v1_2.rate", "2.5")
        .as("a null gauge and a throwing one are left out")
        .hasSize(3);
  }

  @Test
  void aHistogramShowsEachStatisticAsFlinkDoes() {
    Histogram latency = group.histogram("latency", new DescriptiveStatisticsHistogram(100));
    for (long v = 1; v <= 100; v++) {
      latency.update(v);
    }

    Map<String, String> dump = MetricDump.of(registry.all());

    String name = "Source__Orders__v1_2.latency";
    assertThat(dump)
        .containsOnlyKeys(
            name + "_min",
            name + "_max",
            name + "_mean",
            name + "_stddev",
            name + "_p50",
            name + "_p75",
            name + "_p90",
            name + "_p95",
            name + "_p98",
            name + "_p99",
            name + "_p999");
    assertThat(dump.get(name + "_min")).isEqualTo("1");
    assertThat(dump.get(name + "_max")).isEqualTo("100");
    assertThat(Double.parseDouble(dump.get(name + "_mean"))).isEqualTo(50.5);
    assertThat(Double.parseDouble(dump.get(name + "_p50"))).isEqualTo(50.5);
  }

  private record FixedMeter(double rate) implements Meter {
    @Override
    public void markEvent() {}

    @Override
    public void markEvent(long n) {}

    @Override
    public double getRate() {
      return rate;
    }

    @Override
    public long getCount() {
      return 0;
    }
  }
}

package io.weir.cluster.rest.handlers;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import io.weir.cluster.rest.RestException;
import java.util.List;
import java.util.Map;
import java.util.function.IntPredicate;
import org.junit.jupiter.api.Test;

/** The aggregations of {@code /subtasks/metrics}, and its query parameters' errors, as Flink's. */
class VertexMetricsAggregationTest {

  @Test
  void eachAggregationAsked() {
    Map<String, Object> all =
        VertexMetricsHandlers.aggregate(
            "numRecordsIn",
            List.of(10.0, 20.0, 30.0),
            VertexMetricsHandlers.aggregations(List.of()));
    assertThat(all)
        .containsExactly(
            Map.entry("id", "numRecordsIn"),
            Map.entry("min", 10.0),
            Map.entry("max", 30.0),
            Map.entry("avg", 20.0),
            Map.entry("sum", 60.0),
            // The mean absolute deviation, 20/3, of the mean, 20.
            Map.entry("skew", 100.0 / 3));

    Map<String, Object> some =
        VertexMetricsHandlers.aggregate(
            "x", List.of(1.0), VertexMetricsHandlers.aggregations(List.of("sum", "min", "sum")));
    assertThat(some.keySet()).as("in Flink's order, each once").containsExactly("id", "min", "sum");
  }

  @Test
  void skewIsTheMeanAbsoluteDeviationOfTheMeanInPercentAtMostAHundred() {
    assertThat(VertexMetricsHandlers.skew(List.of(5.0, 5.0), 5)).isZero();
    assertThat(VertexMetricsHandlers.skew(List.of(0.0, 0.0), 0)).as("no data, no skew").isZero();
    assertThat(VertexMetricsHandlers.skew(List.of(0.0, 100.0), 50)).isCloseTo(100, within(1e-9));
    assertThat(VertexMetricsHandlers.skew(List.of(0.0, 0.0, 0.0, 400.0), 100))
        .as("capped")
        .isEqualTo(100);
  }

  @Test
  void subtasksAreIndexesAndRanges() {
    IntPredicate chosen = VertexMetricsHandlers.subtaskFilter(List.of("0", "2-4"));
    assertThat(chosen.test(0)).isTrue();
    assertThat(chosen.test(1)).isFalse();
    assertThat(chosen.test(3)).isTrue();
    assertThat(chosen.test(5)).isFalse();
    assertThat(VertexMetricsHandlers.subtaskFilter(List.of()).test(7))
        .as("none named: all")
        .isTrue();
  }

  @Test
  void aBadAggregationOrRangeIsRefusedNamingIt() {
    assertThatThrownBy(() -> VertexMetricsHandlers.aggregations(List.of("p99")))
        .isInstanceOf(RestException.class)
        .hasMessageContaining("'agg' has 'p99'");
    assertThatThrownBy(() -> VertexMetricsHandlers.subtaskFilter(List.of("a-b")))
        .hasMessageContaining("'subtasks' has 'a-b'");
    assertThatThrownBy(() -> VertexMetricsHandlers.subtaskFilter(List.of("1-2-3")))
        .hasMessageContaining("'1-2-3'");
  }
}

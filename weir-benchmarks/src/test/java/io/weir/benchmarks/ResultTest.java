package io.weir.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.entry;

import org.junit.jupiter.api.Test;

class ResultTest {

  @Test
  void aPrintedLineParsesBackToTheSameFigures() {
    Result result = Result.of(Engine.FLINK, "W1", "cp1s", 20_000_000L, 14_000_000_000L);

    Result parsed = Result.parse(result.line()).orElseThrow();

    assertThat(result.line())
        .isEqualTo(
            "RESULT engine=flink workload=W1 config=cp1s records=20000000 seconds=14.000"
                + " recordsPerSecond=1428571");
    assertThat(parsed.engine()).isEqualTo(Engine.FLINK);
    assertThat(parsed.workload()).isEqualTo("W1");
    assertThat(parsed.config()).isEqualTo("cp1s");
    assertThat(parsed.records()).isEqualTo(20_000_000L);
    assertThat(parsed.recordsPerSecond()).isEqualTo(1_428_571d);
  }

  @Test
  void extraFieldsArePrintedAfterTheFixedOnesAndParseBackInOrder() {
    Result result =
        Result.of(Engine.WEIR, "W4", "aligned", 3_000_000L, 30_000_000_000L)
            .with("cpP50", "285")
            .with("cpMax", "n/a")
            .with("completed", "29");

    Result parsed = Result.parse(result.line()).orElseThrow();

    assertThat(result.line())
        .isEqualTo(
            "RESULT engine=weir workload=W4 config=aligned records=3000000 seconds=30.000"
                + " recordsPerSecond=100000 cpP50=285 cpMax=n/a completed=29");
    assertThat(parsed.extra())
        .containsExactly(entry("cpP50", "285"), entry("cpMax", "n/a"), entry("completed", "29"));
    assertThat(parsed.records()).isEqualTo(3_000_000L);
  }

  @Test
  void aFieldThatWouldBreakTheLineIsRefused() {
    Result result = Result.of(Engine.WEIR, "W4", "aligned", 1, 1);
    assertThatThrownBy(() -> result.with("records", "5")).hasMessageContaining("records");
    assertThatThrownBy(() -> result.with("cp", "1 2")).hasMessageContaining("cp=1 2");
  }

  @Test
  void otherLinesAndMalformedResultsAreNotResults() {
    assertThat(Result.parse("12:00:01.000 [main] WARN MiniCluster - something")).isEmpty();
    assertThat(Result.parse("RESULT engine=weir workload=W1 config=off")).isEmpty();
    assertThat(
            Result.parse(
                "RESULT engine=spark workload=W1 config=off records=1 seconds=1"
                    + " recordsPerSecond=1"))
        .isEmpty();
  }
}

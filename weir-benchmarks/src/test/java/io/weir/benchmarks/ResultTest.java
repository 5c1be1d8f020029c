package io.weir.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;

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

package io.weir.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The runner's pieces, without running any benchmark. */
class SideBySideSupportTest {

  @Test
  void medianOfOddAndEvenCounts() {
    assertThat(Stats.median(List.of(3.0, 1.0, 2.0))).isEqualTo(2.0);
    assertThat(Stats.median(List.of(4.0, 1.0, 3.0, 2.0))).isEqualTo(2.5);
  }

  @Test
  void everyRegisteredMainIsARunnableMain() throws Exception {
    for (Workload workload : Workloads.all()) {
      for (Class<?> main : workload.mains().values()) {
        Method method = main.getMethod("main", String[].class);
        assertThat(Modifier.isStatic(method.getModifiers())).as(main.getName()).isTrue();
      }
    }
  }

  @Test
  void parsesTheDocumentedCommandLine() {
    RunnerOptions options =
        RunnerOptions.parse(
            new String[] {
              "--workloads",
              "W1",
              "--runs",
              "3",
              "--records",
              "20000000",
              "--configs",
              "off,cp1s",
              "--xmx",
              "4g"
            });

    assertThat(options.workloads()).containsExactly(Workloads.W1);
    assertThat(options.runs()).isEqualTo(3);
    assertThat(options.recordsOf(Workloads.W1)).isEqualTo(20_000_000L);
    assertThat(options.configsOf(Workloads.W1)).containsExactly("off", "cp1s");
    assertThat(options.xmx()).isEqualTo("4g");
    assertThat(options.warmups()).isEqualTo(1);
  }

  @Test
  void takesZeroWarmUpsButNoNegativeCount() {
    assertThat(RunnerOptions.parse(new String[] {"--warmups", "0"}).warmups()).isZero();
    assertThat(RunnerOptions.parse(new String[] {"--warmups", "2"}).warmups()).isEqualTo(2);
    assertThatThrownBy(() -> RunnerOptions.parse(new String[] {"--warmups", "-1"}))
        .hasMessageContaining("--warmups must be 0 or more, not -1");
  }

  @Test
  void rejectsWhatItCannotRunWithAMessageNamingIt() {
    assertThatThrownBy(() -> RunnerOptions.parse(new String[] {"--workloads", "W9"}))
        .hasMessageContaining("W9")
        .hasMessageContaining("W1");
    assertThatThrownBy(() -> RunnerOptions.parse(new String[] {"--configs", "cp5s"}))
        .hasMessageContaining("cp5s");
    assertThatThrownBy(() -> RunnerOptions.parse(new String[] {"--runs"}))
        .hasMessageContaining("--runs");
  }

  @Test
  void nexmarkQueriesRunInTheVariantsGivenAsConfigurations() {
    RunnerOptions options =
        RunnerOptions.parse(
            new String[] {
              "--workloads", "NEXMARK", "--queries", "q0,q5", "--configs", "heap,rocksdb-cp10s"
            });

    assertThat(options.configsOf(Workloads.NEXMARK))
        .containsExactly("q0", "q0-rocksdb-cp10s", "q5", "q5-rocksdb-cp10s");
    assertThat(
            RunnerOptions.parse(new String[] {"--workloads", "nexmark", "--queries", "q7"})
                .configsOf(Workloads.NEXMARK))
        .containsExactly("q7");
    assertThatThrownBy(
            () -> RunnerOptions.parse(new String[] {"--workloads", "NEXMARK", "--queries", "q9"}))
        .hasMessageContaining("'q9'");
  }

  @Test
  void w4IsTimedAndItsConfigurationsAreAccepted() {
    RunnerOptions options =
        RunnerOptions.parse(
            new String[] {"--workloads", "W4", "--configs", "aligned,unaligned,timeout100"});

    assertThat(options.workloads()).containsExactly(Workloads.W4);
    assertThat(Workloads.W4.timed()).isTrue();
    assertThat(Workloads.W1.timed()).isFalse();
    assertThat(options.configsOf(Workloads.W4))
        .containsExactly("aligned", "unaligned", "timeout100");
  }

  @Test
  void theReportShowsExtraFieldsInATableOfTheirOwnAndLeavesTheMainTableAlone() {
    RunnerOptions options =
        RunnerOptions.parse(
            new String[] {"--workloads", "W4", "--configs", "aligned", "--runs", "1"});
    Report report = new Report(options);
    report.add(
        Result.of(Engine.WEIR, "W4", "aligned", 3_000_000L, 30_000_000_000L)
            .with("cpP50", "285")
            .with("completed", "29"));
    report.add(
        Result.of(Engine.FLINK, "W4", "aligned", 1_500_000L, 30_000_000_000L)
            .with("cpP50", "n/a")
            .with("completed", "0"));

    String md = report.render("run.sh", "-Xmx4g");

    assertThat(md)
        .contains("| workload | configuration | Weir rec/s | Flink rec/s | Weir/Flink ratio |")
        .contains("| W4 backpressure | aligned | 100.0 k | 50.0 k | 2.00 |")
        .contains("| configuration | engine | rec/s | cpP50 | completed |")
        .contains("| aligned | Weir | 100.0 k | 285 | 29 |")
        .contains("| aligned | Flink | 50.0 k | n/a | 0 |");
  }

  @Test
  void childArgumentsAreChecked() {
    assertThat(JobArgs.parse(new String[] {"cp1s", "1000"}, "W1", Workloads.OFF_AND_1S, 5))
        .isEqualTo(new JobArgs("cp1s", 1000));
    assertThat(JobArgs.parse(new String[] {"off"}, "W1", Workloads.OFF_AND_1S, 5).records())
        .isEqualTo(5);
    assertThatThrownBy(() -> JobArgs.parse(new String[] {"on"}, "W1", Workloads.OFF_AND_1S, 5))
        .hasMessageContaining("'on'");
  }

  @Test
  void eachEngineGetsItsOwnClassPathAndNeverBothRocksDbBuilds() {
    ClassPaths paths =
        new ClassPaths(
            "/m/classes:/repo/org/rocksdb/rocksdbjni-10.10.1.1.jar",
            "/m/classes:/repo/com/ververica/frocksdbjni-8.10.0-ververica-1.0.jar");

    assertThat(paths.of(Engine.WEIR)).contains("rocksdbjni-10");
    assertThat(paths.of(Engine.PLAIN)).isEqualTo(paths.of(Engine.WEIR));
    assertThat(paths.of(Engine.FLINK)).contains("frocksdbjni");
    assertThatThrownBy(
            () ->
                new ClassPaths(
                    "/m/classes:/r/rocksdbjni-10.10.1.1.jar:/r/frocksdbjni-8.10.0.jar",
                    "/m/classes"))
        .hasMessageContaining("rocksdbjni")
        .hasMessageContaining("frocksdbjni");
  }
}

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
  void childArgumentsAreChecked() {
    assertThat(JobArgs.parse(new String[] {"cp1s", "1000"}, "W1", Workloads.OFF_AND_1S, 5))
        .isEqualTo(new JobArgs("cp1s", 1000));
    assertThat(JobArgs.parse(new String[] {"off"}, "W1", Workloads.OFF_AND_1S, 5).records())
        .isEqualTo(5);
    assertThatThrownBy(() -> JobArgs.parse(new String[] {"on"}, "W1", Workloads.OFF_AND_1S, 5))
        .hasMessageContaining("'on'");
  }
}

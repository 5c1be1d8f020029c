package io.weir.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

/** Reading the peak RSS of a child JVM and carrying it to the report. */
class PeakRssTest {

  /** The shape of a Linux 5.x/6.x {@code /proc/<pid>/status}, VmPeak and VmRSS around VmHWM. */
  private static final String STATUS =
      String.join(
          "\n",
          "Name:\tjava",
          "Umask:\t0022",
          "State:\tS (sleeping)",
          "Tgid:\t4242",
          "Pid:\t4242",
          "VmPeak:\t 7654321 kB",
          "VmSize:\t 7600000 kB",
          "VmLck:\t       0 kB",
          "VmHWM:\t  812345 kB",
          "VmRSS:\t  700001 kB",
          "RssAnon:\t  650000 kB",
          "VmSwap:\t       0 kB",
          "Threads:\t57",
          "");

  @Test
  void readsTheHighWaterMarkNotThePeakVirtualSizeOrTheCurrentRss() {
    assertThat(PeakRss.parseStatusKb(STATUS)).isEqualTo(OptionalLong.of(812_345));
  }

  @Test
  void aStatusWithoutVmHwmHasNoFigure() {
    // A kernel thread's status has no Vm* lines at all.
    assertThat(PeakRss.parseStatusKb("Name:\tkthreadd\nState:\tS (sleeping)\nPid:\t2\n")).isEmpty();
    assertThat(PeakRss.parseStatusKb("")).isEmpty();
    assertThat(PeakRss.parseStatusKb("VmHWM:\t  lots kB\n")).isEmpty();
    // Only the line's own name counts, not one that merely contains it.
    assertThat(PeakRss.parseStatusKb("XVmHWM:\t 5 kB\n")).isEmpty();
  }

  @Test
  void thisJvmsOwnStatusGivesAPlausibleFigure() {
    OptionalLong kb = PeakRss.ofThisProcessKb();
    if (kb.isPresent()) { // Linux: no JVM running JUnit fits in 10 MiB
      assertThat(kb.getAsLong()).isGreaterThan(10 * 1024);
    }
    assertThat(PeakRss.ofProcessKb(Long.MAX_VALUE)).isEmpty(); // no such process
  }

  @Test
  void theChildsLineParsesBackAndTheLastOneCounts() {
    assertThat(PeakRss.line(812_345)).isEqualTo("PEAK-RSS vmHwmKb=812345");
    assertThat(PeakRss.parseLine("PEAK-RSS vmHwmKb=812345")).isEqualTo(OptionalLong.of(812_345));
    assertThat(PeakRss.parseLine("RESULT engine=weir workload=W1")).isEmpty();
    assertThat(PeakRss.parseLine("PEAK-RSS vmHwmKb=")).isEmpty();
    assertThat(
            PeakRss.lastIn(
                List.of(
                    "some log line",
                    "PEAK-RSS vmHwmKb=1",
                    "RESULT engine=weir",
                    "PEAK-RSS vmHwmKb=2")))
        .isEqualTo(OptionalLong.of(2));
    assertThat(PeakRss.lastIn(List.of("no figure here"))).isEmpty();
  }

  @Test
  void aResultCarriesItsPeakRssThroughItsLine() {
    Result result =
        Result.of(Engine.WEIR, "W1", "off", 20_000_000L, 10_000_000_000L)
            .with("cpP50", "12")
            .withPeakRssKb(812_345);

    Result parsed = Result.parse(result.line()).orElseThrow();

    assertThat(result.line())
        .isEqualTo(
            "RESULT engine=weir workload=W1 config=off records=20000000 seconds=10.000"
                + " recordsPerSecond=2000000 peakRssKb=812345 cpP50=12");
    assertThat(parsed.peakRssKb()).isEqualTo(OptionalLong.of(812_345));
    assertThat(parsed.extra()).containsOnlyKeys("cpP50");
    assertThat(Result.parse(Result.of(Engine.WEIR, "W1", "off", 1, 1).line()).orElseThrow())
        .extracting(Result::peakRssKb)
        .isEqualTo(OptionalLong.empty());
    assertThatThrownBy(() -> result.with("peakRssKb", "5")).hasMessageContaining("peakRssKb");
  }

  @Test
  void theReportShowsMedianPeakRssPerEngineAndTheRatioInATableOfItsOwn() {
    RunnerOptions options =
        RunnerOptions.parse(new String[] {"--workloads", "W1", "--configs", "cp1s", "--runs", "3"});
    Report report = new Report(options);
    long[] weirKb = {600 * 1024, 500 * 1024, 900 * 1024};
    long[] flinkKb = {1000 * 1024, 1200 * 1024, 1100 * 1024};
    for (int run = 0; run < 3; run++) {
      report.add(
          Result.of(Engine.WEIR, "W1", "cp1s", 20_000_000L, 5_000_000_000L)
              .withPeakRssKb(weirKb[run]));
      report.add(
          Result.of(Engine.FLINK, "W1", "cp1s", 20_000_000L, 10_000_000_000L)
              .withPeakRssKb(flinkKb[run]));
    }

    String md = report.render("run.sh", "-Xmx4g");

    assertThat(md)
        .contains("| W1 keyed-count | cp1s | 4.00 M | 2.00 M | 2.00 |")
        .contains(
            "| workload | configuration | Weir peak RSS | Flink peak RSS | Weir/Flink ratio |")
        .contains("| W1 keyed-count | cp1s | 600 MiB | 1100 MiB | 0.55 |");
    // The main table keeps its five columns.
    assertThat(md).doesNotContain("| Weir rec/s | Flink rec/s | Weir/Flink ratio | Weir peak");
  }

  @Test
  void withoutAnyFigureThereIsNoPeakRssTable() {
    RunnerOptions options =
        RunnerOptions.parse(new String[] {"--workloads", "W1", "--configs", "off", "--runs", "1"});
    Report report = new Report(options);
    report.add(Result.of(Engine.WEIR, "W1", "off", 1_000L, 1_000_000_000L));

    assertThat(report.render("run.sh", "-Xmx4g")).doesNotContain("peak RSS");
  }
}

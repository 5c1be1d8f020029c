package io.weir.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The generated part of {@code BENCHMARKS.md}, from a small results file. */
class ResultsTableTest {
  private static final String DOCUMENT =
      """
      # Benchmarks

      The method, written by hand.

      <!-- results:begin -->
      a table from yesterday
      <!-- results:end -->

      ## Notes

      - [2026-12-03 W1](docs/performance/2026-12-03-w1.md)
      """;

  @TempDir Path dir;

  @Test
  void writesTheNewestWeirAndFlinkFiguresSideBySideAndNothingOnASecondRun() throws IOException {
    Path results = dir.resolve("results.jsonl");
    ResultsFile.append(
        results,
        List.of(
            // Older than the next Weir record of W1 off: not shown.
            record(
                "aaaaaaa",
                "2026-12-01T10:00:00Z",
                "weir",
                "W1",
                "off",
                20_000_000L,
                3,
                Map.of("recordsPerSecond", "9000000")),
            record(
                "1c26140",
                "2026-12-03T19:34:00Z",
                "weir",
                "W1",
                "off",
                20_000_000L,
                3,
                Map.of("recordsPerSecond", "16760000", "peakRssBytes", "436207616")),
            record(
                "1c26140",
                "2026-12-03T19:34:00Z",
                "flink",
                "W1",
                "off",
                20_000_000L,
                3,
                Map.of("recordsPerSecond", "3260000", "peakRssBytes", "1069547520")),
            record(
                "1c26140",
                "2026-12-03T19:34:00Z",
                "plain",
                "W1",
                "off",
                20_000_000L,
                3,
                Map.of("recordsPerSecond", "37830000")),
            record(
                "f9a4c40",
                "2026-12-03T17:16:00Z",
                "weir",
                "W1",
                "cp1s",
                200_000_000L,
                3,
                Map.of("recordsPerSecond", "22040000")),
            record(
                "2f1c739",
                "2026-12-01T12:30:54Z",
                "flink",
                "W1",
                "cp1s",
                200_000_000L,
                3,
                Map.of("recordsPerSecond", "4170000")),
            record(
                "edac48d",
                "2026-12-02T12:18:00Z",
                "weir",
                "W6",
                "access-rocksdb",
                null,
                5,
                Map.of("opsPerSecond", "94000", "opsPerSecondError", "65000")),
            record(
                "6023127",
                "2026-12-02T06:51:00Z",
                "weir",
                "W4",
                "unaligned",
                null,
                3,
                Map.of("cpP50Ms", "14", "inflightMaxBytes", "449136")),
            record(
                "6023127",
                "2026-12-02T06:51:00Z",
                "flink",
                "W4",
                "unaligned",
                null,
                3,
                Map.of("cpP50Ms", "36", "inflightMaxBytes", "691693")),
            record(
                "1c26140",
                "2026-12-03T20:09:00Z",
                "weir",
                "W7",
                "aligned",
                6_000_000L,
                3,
                Map.of("p99Ms", "0.05")),
            record(
                "1c26140",
                "2026-12-03T20:09:00Z",
                "flink",
                "W7",
                "aligned",
                6_000_000L,
                3,
                Map.of("p99Ms", "80.0"))));
    Path benchmarks = dir.resolve("BENCHMARKS.md");
    Files.writeString(benchmarks, DOCUMENT, StandardCharsets.UTF_8);
    String[] args = {"--results", results.toString(), "--benchmarks", benchmarks.toString()};

    ResultsTable.main(args);

    String once = Files.readString(benchmarks, StandardCharsets.UTF_8);
    assertThat(once)
        .startsWith("# Benchmarks\n\nThe method, written by hand.\n\n<!-- results:begin -->\n")
        .endsWith(
            "<!-- results:end -->\n\n## Notes\n\n"
                + "- [2026-12-03 W1](docs/performance/2026-12-03-w1.md)\n")
        .doesNotContain("a table from yesterday")
        .doesNotContain("aaaaaaa")
        .contains(
            "\n### W1 keyed-count\n\n"
                + "| configuration | records | figure | Weir | Flink | Weir/Flink | measured |\n"
                + "| --- | ---: | --- | ---: | ---: | ---: | --- |\n"
                + "| off | 20 000 000 | recordsPerSecond | 16.76 M | 3.26 M | 5.14 |"
                + " `1c26140` 2026-12-03 19:34 UTC, 3 runs |\n"
                + "|  |  | peakRssBytes | 416 MiB | 1020 MiB | 0.41 |  |\n"
                + "| cp1s | 200 000 000 | recordsPerSecond | 22.04 M | 4.17 M | 5.29 |"
                + " Weir `f9a4c40` 2026-12-03 17:16 UTC, 3 runs;"
                + " Flink `2f1c739` 2026-12-01 12:30 UTC, 3 runs |\n"
                + "\n- Plain-Java limit (no framework, one thread per core), off, 20 000 000"
                + " records: 37.83 M rec/s\n"
                + "  (`1c26140` 2026-12-03 19:34 UTC, 3 runs); Weir at 44.3 % of it.\n")
        .contains(
            "| unaligned |  | cpP50Ms | 14 ms | 36 ms | 0.39 | `6023127` 2026-12-02 06:51 UTC,"
                + " 3 runs |\n"
                + "|  |  | inflightMaxBytes | 449.1 kB | 691.7 kB | 0.65 |  |\n")
        .contains("| aligned | 6 000 000 | p99Ms | 0.05 ms | 80 ms | 0.00063 |")
        .contains(
            "| access-rocksdb |  | opsPerSecond | 94.0 k ± 65.0 k | — | — |"
                + " Weir `edac48d` 2026-12-02 12:18 UTC, 5 runs |\n");
    assertThat(once.lines().filter(line -> !line.startsWith("|")))
        .allSatisfy(line -> assertThat(line.length()).isLessThanOrEqualTo(100));
    // Workloads in their order: W1, W4, W6.
    assertThat(once.indexOf("### W1 ")).isLessThan(once.indexOf("### W4 "));
    assertThat(once.indexOf("### W4 ")).isLessThan(once.indexOf("### W6 "));

    ResultsTable.main(args);

    assertThat(Files.readAllBytes(benchmarks)).isEqualTo(once.getBytes(StandardCharsets.UTF_8));
  }

  @Test
  void theRecordsAreSortedWhateverTheirOrderInTheFile() {
    ResultRecord w2 =
        record(
            "1c26140",
            "2026-12-03T19:29:00Z",
            "weir",
            "W2",
            "off",
            20_000_000L,
            3,
            Map.of("recordsPerSecond", "4060000"));
    ResultRecord w1 =
        record(
            "1c26140",
            "2026-12-03T19:34:00Z",
            "weir",
            "W1",
            "cp1s",
            20_000_000L,
            3,
            Map.of("recordsPerSecond", "16750000"));
    ResultRecord w1Off =
        record(
            "1c26140",
            "2026-12-03T19:34:00Z",
            "weir",
            "W1",
            "off",
            20_000_000L,
            3,
            Map.of("recordsPerSecond", "16760000"));

    String table = ResultsTable.render(List.of(w2, w1, w1Off));

    assertThat(table).isEqualTo(ResultsTable.render(List.of(w1Off, w1, w2)));
    assertThat(table.indexOf("| off |")).isLessThan(table.indexOf("| cp1s |"));
  }

  @Test
  void theRepositorysBenchmarksMdIsWhatItsResultsFileGives() throws IOException {
    Path root = Path.of("").toAbsolutePath().getParent();
    String document = Files.readString(root.resolve("BENCHMARKS.md"));
    String generated =
        ResultsTable.render(ResultsFile.read(root.resolve("benchmarks/results.jsonl")));

    assertThat(ResultsTable.replace(document, generated))
        .as("BENCHMARKS.md's tables: run weir-benchmarks/results-table.sh and commit the result")
        .isEqualTo(document);
  }

  @Test
  void aDocumentWithoutTheMarkersIsRefusedWithWhereTheyGo() {
    assertThatThrownBy(() -> ResultsTable.replace("# Benchmarks\n", "table\n"))
        .hasMessageContaining("<!-- results:begin -->")
        .hasMessageContaining("<!-- results:end -->");
  }

  private static ResultRecord record(
      String commit,
      String date,
      String engine,
      String workload,
      String configuration,
      Long records,
      int runs,
      Map<String, String> figures) {
    TreeMap<String, BigDecimal> values = new TreeMap<>();
    figures.forEach((name, value) -> values.put(name, new BigDecimal(value)));
    return new ResultRecord(
        commit,
        date,
        engine,
        workload,
        configuration,
        records,
        runs,
        values,
        "weir-benchmarks/run.sh --workloads " + workload,
        Map.of("cores", 2));
  }
}

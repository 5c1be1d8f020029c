package io.weir.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The runner's records of the results file, as it writes and reads them; no benchmark is run. */
class ResultsFileTest {
  private static final Provenance PROVENANCE =
      new Provenance(
          "1c26140-dirty",
          Instant.parse("2026-12-03T19:34:12.345Z"),
          "weir-benchmarks/run.sh --workloads W4 --configs aligned --runs 2",
          Map.of("cores", 2, "memory", "23.5 GiB"));

  @TempDir Path dir;

  @Test
  void theRunnerWritesOneValidLinePerEngineWorkloadAndConfiguration() throws IOException {
    RunnerOptions options =
        RunnerOptions.parse(new String[] {"--workloads", "W4", "--configs", "aligned"});
    Report report = new Report(options);
    for (long cpP50 : new long[] {239, 241}) {
      report.add(
          Result.of(Engine.WEIR, "W4", "aligned", 5_100_000L, 30_000_000_000L)
              .with("cpP50", Long.toString(cpP50))
              .with("cpMax", "n/a")
              .with("completed", "29")
              .withPeakRssKb(300_000));
      report.add(
          Result.of(Engine.FLINK, "W4", "aligned", 4_500_000L, 30_000_000_000L)
              .with("cpP50", "263")
              .with("cpMax", "315")
              .with("completed", "28"));
    }
    Path file = dir.resolve("benchmarks").resolve("results.jsonl");

    ResultsFile.append(file, report.records(PROVENANCE));

    List<String> lines = Files.readAllLines(file, StandardCharsets.UTF_8);
    assertThat(lines).hasSize(2);
    JsonNode weir = new ObjectMapper().readTree(lines.get(0));
    assertThat(weir.get("commit").asText()).isEqualTo("1c26140-dirty");
    assertThat(weir.get("date").asText()).isEqualTo("2026-12-03T19:34:12Z");
    assertThat(weir.get("engine").asText()).isEqualTo("weir");
    assertThat(weir.get("workload").asText()).isEqualTo("W4");
    assertThat(weir.get("configuration").asText()).isEqualTo("aligned");
    assertThat(weir.get("runs").asInt()).isEqualTo(2);
    assertThat(weir.get("command").asText()).startsWith("weir-benchmarks/run.sh --workloads W4");
    assertThat(weir.get("machine").get("cores").asInt()).isEqualTo(2);
    // W4's source is unbounded: no record count.
    assertThat(weir.has("records")).isFalse();
    JsonNode figures = weir.get("figures");
    assertThat(figures.get("recordsPerSecond").asText()).isEqualTo("170000");
    assertThat(figures.get("cpP50Ms").asText()).isEqualTo("240");
    assertThat(figures.get("peakRssBytes").asText()).isEqualTo("307200000");
    assertThat(figures.get("completed").asInt()).isEqualTo(29);
    // n/a in the runs: no figure rather than a wrong one.
    assertThat(figures.has("cpMaxMs")).isFalse();
    JsonNode flink = new ObjectMapper().readTree(lines.get(1));
    assertThat(flink.get("engine").asText()).isEqualTo("flink");
    assertThat(flink.get("figures").get("cpMaxMs").asInt()).isEqualTo(315);
    assertThat(flink.get("figures").has("peakRssBytes")).isFalse();

    assertThat(ResultsFile.read(file)).isEqualTo(report.records(PROVENANCE));
  }

  @Test
  void aWorkloadComparedWithAnotherCarriesItsJobTime() {
    RunnerOptions options =
        RunnerOptions.parse(
            new String[] {"--workloads", "W3,W5", "--configs", "heap", "--records", "1000"});
    Report report = new Report(options);
    report.add(Result.of(Engine.WEIR, "W3", "heap", 1000, 3_250_000_000L));
    report.add(
        Result.of(Engine.WEIR, "W5", "heap", 1000, 4_570_000_000L).with("recoveryMs", "216"));

    List<ResultRecord> records = report.records(PROVENANCE);

    assertThat(records).hasSize(2);
    ResultRecord w5 = records.get(1);
    assertThat(w5.records()).isEqualTo(1000L);
    assertThat(w5.figures())
        .containsEntry("seconds", new BigDecimal("4.57"))
        .containsEntry("baselineSeconds", new BigDecimal("3.25"))
        .containsEntry("recoveryMs", new BigDecimal("216"));
  }

  @Test
  void appendsAfterALastLineWithoutLineBreak() throws IOException {
    Path file = dir.resolve("results.jsonl");
    ResultRecord record = record("W1", "off");
    Files.writeString(file, ResultsFile.line(record));

    ResultsFile.append(file, List.of(record("W1", "cp1s")));

    assertThat(ResultsFile.read(file)).containsExactly(record, record("W1", "cp1s"));
  }

  @Test
  void aLineThatIsNotARecordIsNamedWithWhatIsWrong() throws IOException {
    Path file = dir.resolve("results.jsonl");
    Files.writeString(
        file,
        ResultsFile.line(record("W1", "off"))
            + "\n\n"
            + ResultsFile.line(record("W1", "off")).replace("2026-12-03T19:34:12Z", "yesterday")
            + "\n");

    assertThatThrownBy(() -> ResultsFile.read(file))
        .hasMessageContaining("results.jsonl:3")
        .hasMessageContaining("ISO-8601")
        .hasMessageContaining("yesterday");
  }

  @Test
  void theRunnerAppendsToTheRepositorysResultsFileUnlessToldOtherwise() {
    assertThat(RunnerOptions.parse(new String[] {}).results())
        .contains(Path.of("benchmarks", "results.jsonl"));
    assertThat(RunnerOptions.parse(new String[] {"--results", "x.jsonl", "--runs", "1"}).results())
        .contains(Path.of("x.jsonl").toAbsolutePath());
    RunnerOptions none = RunnerOptions.parse(new String[] {"--no-results", "--runs", "1"});
    assertThat(none.results()).isEmpty();
    assertThat(none.runs()).isEqualTo(1);
  }

  @Test
  void whereGitFindsNoRepositoryTheCommitIsUnknown() {
    assertThat(Provenance.commitOf(dir.resolve("not-a-directory"))).isEqualTo("unknown");
  }

  @Test
  void aChangedResultsFileOrTableLeavesTheCommitCleanAndAChangedSourceMakesItDirty()
      throws Exception {
    Path repo = dir.resolve("repo");
    Files.createDirectories(repo.resolve("benchmarks"));
    Files.writeString(repo.resolve("benchmarks/results.jsonl"), "");
    Files.writeString(repo.resolve("BENCHMARKS.md"), "# Benchmarks\n");
    Files.writeString(repo.resolve("Job.java"), "class Job {}\n");
    git(repo, "init", "-q");
    git(repo, "add", ".");
    git(repo, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "first");
    String head = Provenance.commitOf(repo);
    assertThat(head).matches("[0-9a-f]{7,}");

    // What one invocation of a series writes does not make the next one's commit dirty.
    Files.writeString(repo.resolve("benchmarks/results.jsonl"), "{}\n");
    Files.writeString(repo.resolve("BENCHMARKS.md"), "# Benchmarks, regenerated\n");
    assertThat(Provenance.commitOf(repo)).isEqualTo(head);
    // Nor when the runner starts in a subfolder of the repository.
    assertThat(Provenance.commitOf(repo.resolve("benchmarks"))).isEqualTo(head);

    Files.writeString(repo.resolve("Job.java"), "class Job { int changed; }\n");
    assertThat(Provenance.commitOf(repo)).isEqualTo(head + "-dirty");
    assertThat(Provenance.commitOf(repo.resolve("benchmarks"))).isEqualTo(head + "-dirty");
  }

  private static void git(Path repo, String... args) throws Exception {
    List<String> command = new java.util.ArrayList<>(List.of("git", "-C", repo.toString()));
    command.addAll(List.of(args));
    Process process = new ProcessBuilder(command).inheritIO().start();
    assertThat(process.waitFor()).as("git %s", List.of(args)).isZero();
  }

  @Test
  void unitlessFieldsAndSizesInKilobytesGetNamesWithTheirUnit() {
    assertThat(Report.figureName("cpP50")).isEqualTo("cpP50Ms");
    assertThat(Report.figureName("inflightMax")).isEqualTo("inflightMaxBytes");
    assertThat(Report.figureName("clusterPeakRssKb")).isEqualTo("clusterPeakRssBytes");
    assertThat(Report.figureName("p99Ms")).isEqualTo("p99Ms");
    assertThat(Report.figure(16_761_234.56)).isEqualTo(new BigDecimal("16761235"));
    assertThat(Report.figure(0.04999)).isEqualTo(new BigDecimal("0.05"));
  }

  private static ResultRecord record(String workload, String configuration) {
    return PROVENANCE.record(
        Engine.WEIR,
        workload,
        configuration,
        20_000_000L,
        3,
        new TreeMap<>(Map.of("recordsPerSecond", new BigDecimal("16760000"))));
  }
}

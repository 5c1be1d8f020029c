package io.weir.benchmarks;

import io.weir.benchmarks.ChildJvm.ChildFailure;
import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * Runs workloads on Weir and on Flink in the same invocation and prints a Markdown table of
 * medians: workload, configuration, Weir, Flink, ratio, plus the plain-Java limit.
 *
 * <p>For each workload and configuration: {@code --warmups} warm-up rounds (default one; none for a
 * {@linkplain Workload#timed() timed} workload), then {@code --runs} rounds alternating the engines
 * (weir, flink, plain, weir, flink, plain, ...), every run in a fresh JVM so no engine inherits the
 * other's JIT, heap or threads. The plain-Java limit is run in the rounds of the first
 * configuration only, since it has no checkpointing. See {@link RunnerOptions} for the command
 * line; {@code weir-benchmarks/run.sh} builds and calls this.
 *
 * <p>After the table, appends one {@link ResultRecord} per engine, workload and configuration to
 * the results file ({@code --results}, by default {@code benchmarks/results.jsonl} at the
 * repository root; {@code --no-results} for none), from which {@link ResultsTable} regenerates
 * {@code BENCHMARKS.md}'s tables.
 *
 * <p>Exits with 1 if a child fails (its output's tail is printed) or the results file cannot be
 * written, 2 on a bad command line.
 */
public final class SideBySide {
  private SideBySide() {}

  public static void main(String[] args) throws IOException, InterruptedException {
    Instant started = Instant.now();
    // The code measured is the code checked out now: edits made while the runs go on are not in
    // the jars they run, so the commit is read before the first run, not when the results are.
    String commit = Provenance.commitOf(repository());
    RunnerOptions options;
    try {
      options = RunnerOptions.parse(args);
    } catch (IllegalArgumentException e) {
      System.err.println(e.getMessage());
      System.exit(2);
      return;
    }
    ChildJvm child =
        new ChildJvm(
            ClassPaths.ofModule(), options.xmx(), options.jvmArgs(), options.timeoutSeconds());
    Report report = new Report(options);
    try {
      for (Workload workload : options.workloads()) {
        List<String> configs = options.configsOf(workload);
        for (String config : configs) {
          List<Engine> engines = enginesFor(workload, options, config.equals(configs.get(0)));
          runWorkload(
              child,
              report,
              workload,
              config,
              options.recordsOf(workload),
              engines,
              options.warmups(),
              options.runs());
        }
      }
    } catch (ChildFailure e) {
      System.err.println(e.getMessage());
      System.exit(1);
      return;
    }
    String command =
        System.getProperty("weir.bench.command", "java io.weir.benchmarks.SideBySide")
            + Arrays.stream(args)
                .map(arg -> arg.contains(" ") ? "\"" + arg + "\"" : arg)
                .map(arg -> " " + arg)
                .collect(Collectors.joining());
    System.out.println();
    System.out.print(report.render(command, String.join(" ", child.jvmOptions())));
    if (options.results().isPresent()) {
      Path repository = repository();
      Path file = repository.resolve(options.results().get());
      List<ResultRecord> records =
          report.records(Provenance.ofThisMachine(commit, started, command, report.loadAtStart()));
      try {
        ResultsFile.append(file, records);
      } catch (IOException e) {
        System.err.println(
            "Could not append the results to "
                + file
                + ": "
                + e.getMessage()
                + ". The table above is all there is of this run; give a writable file with"
                + " --results, or --no-results.");
        System.exit(1);
        return;
      }
      System.err.printf(
          "Appended %d result records to %s; weir-benchmarks/results-table.sh regenerates"
              + " BENCHMARKS.md's tables from it.%n",
          records.size(), file);
    }
  }

  /**
   * The repository this runner was built in: three levels above its {@code
   * weir-benchmarks/target/classes}; the working directory where that cannot be told (an IDE).
   */
  private static Path repository() {
    try {
      Path classes =
          Path.of(SideBySide.class.getProtectionDomain().getCodeSource().getLocation().toURI());
      Path module = classes.resolve("../..").normalize();
      if (Files.isDirectory(classes)
          && Files.isRegularFile(module.resolve("pom.xml"))
          && module.getParent() != null) {
        return module.getParent();
      }
    } catch (URISyntaxException | SecurityException e) {
      // fall through to the working directory
    }
    return Path.of("").toAbsolutePath();
  }

  /** The engines to run, in the order they alternate; the plain limit only when asked for. */
  private static List<Engine> enginesFor(
      Workload workload, RunnerOptions options, boolean withLimit) {
    List<Engine> engines = new ArrayList<>();
    for (Engine engine : Engine.values()) {
      if (options.engines().contains(engine)
          && workload.main(engine).isPresent()
          && (engine != Engine.PLAIN || withLimit)) {
        engines.add(engine);
      }
    }
    return engines;
  }

  private static void runWorkload(
      ChildJvm child,
      Report report,
      Workload workload,
      String config,
      long records,
      List<Engine> engines,
      int warmups,
      int runs)
      throws ChildFailure, IOException, InterruptedException {
    // A timed workload (W4: 30 s a run) warms up within each run; a warm-up would only add time.
    if (!workload.timed()) {
      for (int warmup = 1; warmup <= warmups; warmup++) {
        for (Engine engine : engines) {
          run(child, workload, config, records, engine, "warm-up");
        }
      }
    }
    for (int round = 1; round <= runs; round++) {
      for (Engine engine : engines) {
        report.add(run(child, workload, config, records, engine, "run " + round + "/" + runs));
      }
    }
  }

  private static Result run(
      ChildJvm child, Workload workload, String config, long records, Engine engine, String what)
      throws ChildFailure, IOException, InterruptedException {
    // The plain limit has no checkpointing: it always runs as "off".
    String childConfig = engine == Engine.PLAIN ? "off" : config;
    Result result = child.run(workload, engine, childConfig, records);
    System.err.printf(
        Locale.ROOT,
        "[%s %s] %-7s %-5s %s rec/s (%.2f s, peak RSS %s)%s%n",
        workload.id(),
        config,
        what,
        engine.id(),
        Report.rate(result.recordsPerSecond()),
        result.seconds(),
        result.peakRssKb().isPresent()
            ? PeakRss.mib(Optional.of((double) result.peakRssKb().getAsLong()))
            : "n/a",
        result.extra().entrySet().stream()
            .map(e -> " " + e.getKey() + "=" + e.getValue())
            .collect(Collectors.joining()));
    return result;
  }
}

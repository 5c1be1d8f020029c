package io.weir.benchmarks;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.stream.Collectors;

/**
 * Collects the measured runs of one invocation and renders them twice: as the Markdown the runner
 * prints (the Weir/Flink table, the plain-Java limit, checkpointing overhead, every run's figure,
 * and the command and machine), and as the {@link ResultRecord}s it appends to the results file,
 * from which {@link ResultsTable} writes {@code BENCHMARKS.md}'s tables. Used from the runner's
 * main thread only.
 */
final class Report {
  private final RunnerOptions options;
  private final List<Result> results = new ArrayList<>();
  private final String loadAtStart = loadAverage();

  Report(RunnerOptions options) {
    this.options = options;
  }

  void add(Result result) {
    results.add(result);
  }

  /** The load averages when this report was started, as {@link #loadAverage()} gives them. */
  String loadAtStart() {
    return loadAtStart;
  }

  /**
   * The runs added so far as records of the results file: one per engine, workload and
   * configuration run, in the order first run, each figure the median of its runs. The figures are
   * the {@code RESULT} line's, named with their unit ({@link #figureName}): {@code
   * recordsPerSecond}, {@code seconds} (job time), {@code peakRssBytes}, then the workload's own
   * fields that are numbers in every run (one that is {@code n/a} in some run is left out); a
   * workload {@linkplain Workload#comparedWith() compared with} another run alike in the same
   * invocation adds {@code baselineSeconds}, the other's median job time (W5: W3's, the same job
   * without the failure).
   */
  List<ResultRecord> records(Provenance provenance) {
    Map<List<Object>, List<Result>> groups = new LinkedHashMap<>();
    for (Result r : results) {
      groups
          .computeIfAbsent(List.of(r.workload(), r.config(), r.engine()), k -> new ArrayList<>())
          .add(r);
    }
    List<ResultRecord> records = new ArrayList<>();
    for (List<Result> runs : groups.values()) {
      Result first = runs.get(0);
      Workload workload = Workloads.byId(first.workload());
      Map<String, BigDecimal> figures = figures(runs);
      if (!workload.comparedWith().isEmpty()) {
        Workload other = Workloads.byId(workload.comparedWith());
        if (options.workloads().contains(other)
            && options.recordsOf(other) == options.recordsOf(workload)) {
          medianSeconds(other.id(), first.config(), first.engine())
              .ifPresent(seconds -> figures.put("baselineSeconds", figure(seconds)));
        }
      }
      long count = options.recordsOf(workload);
      records.add(
          provenance.record(
              first.engine(),
              workload.id(),
              first.config(),
              // An unbounded source (W4) has no record count; the run's length is its measure.
              count == Long.MAX_VALUE ? null : count,
              runs.size(),
              figures));
    }
    return records;
  }

  /** The medians of one engine's runs of one workload and configuration, by figure name. */
  private static Map<String, BigDecimal> figures(List<Result> runs) {
    Map<String, BigDecimal> figures = new TreeMap<>();
    figures.put(
        "recordsPerSecond",
        figure(Stats.median(runs.stream().map(Result::recordsPerSecond).toList())));
    figures.put("seconds", figure(Stats.median(runs.stream().map(Result::seconds).toList())));
    if (runs.stream().allMatch(r -> r.peakRssKb().isPresent())) {
      figures.put(
          "peakRssBytes",
          figure(
              1024
                  * Stats.median(
                      runs.stream().map(r -> (double) r.peakRssKb().getAsLong()).toList())));
    }
    List<String> keys = runs.stream().flatMap(r -> r.extra().keySet().stream()).distinct().toList();
    for (String key : keys) {
      List<Double> values = new ArrayList<>();
      for (Result r : runs) {
        try {
          values.add(Double.parseDouble(r.extra().getOrDefault(key, "")));
        } catch (NumberFormatException e) {
          break; // n/a in some run: no median to give
        }
      }
      if (values.size() == runs.size()) {
        double median = Stats.median(values);
        // A size in kB (W8's clusterPeakRssKb) is written in bytes, as every size is.
        figures.put(figureName(key), figure(key.endsWith("Kb") ? median * 1024 : median));
      }
    }
    return figures;
  }

  /**
   * The results file's name for a {@code RESULT} field: the field's own name, which carries its
   * unit ({@code p99Ms}, {@code lastCpStateBytes}), but for W4's fields, printed without one, and
   * sizes in kB, which the file holds in bytes; a name without a unit is a count.
   */
  static String figureName(String field) {
    return switch (field) {
      case "cpP50" -> "cpP50Ms";
      case "cpMax" -> "cpMaxMs";
      case "alignMax" -> "alignMaxMs";
      case "inflightMax" -> "inflightMaxBytes";
      default -> field.endsWith("Kb") ? field.substring(0, field.length() - 2) + "Bytes" : field;
    };
  }

  /** A median as the file holds it: whole numbers from 1 000 up, else at most 3 decimals. */
  static BigDecimal figure(double value) {
    BigDecimal exact = BigDecimal.valueOf(value);
    return exact
        .setScale(Math.abs(value) >= 1000 ? 0 : 3, RoundingMode.HALF_EVEN)
        .stripTrailingZeros();
  }

  /** The median records/s of {@code engine} on {@code workload} in {@code config}, if run. */
  Optional<Double> median(Workload workload, String config, Engine engine) {
    List<Double> figures = figures(workload, config, engine);
    return figures.isEmpty() ? Optional.empty() : Optional.of(Stats.median(figures));
  }

  /** The median job time in seconds of {@code engine} on workload {@code id} in {@code config}. */
  private Optional<Double> medianSeconds(String id, String config, Engine engine) {
    List<Double> seconds =
        results.stream()
            .filter(r -> r.workload().equals(id) && r.config().equals(config))
            .filter(r -> r.engine() == engine)
            .map(Result::seconds)
            .toList();
    return seconds.isEmpty() ? Optional.empty() : Optional.of(Stats.median(seconds));
  }

  private List<Double> figures(Workload workload, String config, Engine engine) {
    return results.stream()
        .filter(r -> r.workload().equals(workload.id()))
        .filter(r -> r.config().equals(config))
        .filter(r -> r.engine() == engine)
        .map(Result::recordsPerSecond)
        .toList();
  }

  String render(String command, String jvmOptions) {
    StringBuilder md = new StringBuilder();
    md.append("| workload | configuration | Weir rec/s | Flink rec/s | Weir/Flink ratio |\n");
    md.append("| --- | --- | ---: | ---: | ---: |\n");
    for (Workload workload : options.workloads()) {
      for (String config : options.configsOf(workload)) {
        Optional<Double> weir = median(workload, config, Engine.WEIR);
        Optional<Double> flink = median(workload, config, Engine.FLINK);
        md.append("| ")
            .append(workload.title())
            .append(" | ")
            .append(config)
            .append(" | ")
            .append(weir.map(Report::rate).orElse("n/a"))
            .append(" | ")
            .append(flink.map(Report::rate).orElse("n/a"))
            .append(" | ")
            .append(ratio(weir, flink))
            .append(" |\n");
      }
    }
    md.append('\n');
    renderPeakRss(md);
    for (Workload workload : options.workloads()) {
      renderExtra(md, workload);
    }

    for (Workload workload : options.workloads()) {
      List<String> configs = options.configsOf(workload);
      // The limit has no checkpointing and runs once per workload, whatever the configurations.
      List<Double> limitFigures =
          results.stream()
              .filter(r -> r.workload().equals(workload.id()) && r.engine() == Engine.PLAIN)
              .map(Result::recordsPerSecond)
              .toList();
      Optional<Double> limit =
          limitFigures.isEmpty() ? Optional.empty() : Optional.of(Stats.median(limitFigures));
      if (limit.isPresent()) {
        md.append("- Plain-Java limit, ")
            .append(workload.title())
            .append(": ")
            .append(rate(limit.get()))
            .append(" rec/s (no framework, one thread per core; median of ")
            .append(limitFigures.size())
            .append("). Weir at ");
        List<String> fractions = new ArrayList<>();
        for (String config : configs) {
          median(workload, config, Engine.WEIR)
              .ifPresent(
                  weir -> fractions.add(percent(weir / limit.get()) + " of it (" + config + ")"));
        }
        md.append(fractions.isEmpty() ? "n/a (not run)" : String.join(", ", fractions))
            .append(".\n");
      }
      if (configs.contains("off")) {
        for (String config : configs) {
          if (config.equals("off")) {
            continue;
          }
          List<String> overheads = new ArrayList<>();
          for (Engine engine : List.of(Engine.WEIR, Engine.FLINK)) {
            Optional<Double> off = median(workload, "off", engine);
            Optional<Double> on = median(workload, config, engine);
            if (off.isPresent() && on.isPresent()) {
              overheads.add(engine.displayName() + " " + percent(1 - on.get() / off.get()));
            }
          }
          if (!overheads.isEmpty()) {
            md.append("- Checkpointing overhead, ")
                .append(workload.title())
                .append(", ")
                .append(config)
                .append(" against off (throughput lost): ")
                .append(String.join(", ", overheads))
                .append(".\n");
          }
        }
      }
    }
    for (Workload workload : options.workloads()) {
      renderComparison(md, workload);
    }
    md.append("- Every run, rec/s in the order run (warm-ups excluded): ");
    Map<String, List<String>> runs = new LinkedHashMap<>();
    for (Result r : results) {
      runs.computeIfAbsent(
              r.workload() + " " + r.config() + " " + r.engine().id(), k -> new ArrayList<>())
          .add(rate(r.recordsPerSecond()));
    }
    md.append(
            runs.entrySet().stream()
                .map(e -> e.getKey() + ": " + String.join(", ", e.getValue()))
                .collect(Collectors.joining("; ")))
        .append(".\n\n");

    md.append("Command: `").append(command).append("`  \n");
    md.append("Date: ")
        .append(
            ZonedDateTime.now(ZoneOffset.UTC)
                .truncatedTo(ChronoUnit.SECONDS)
                .format(DateTimeFormatter.ISO_OFFSET_DATE_TIME))
        .append("; nproc: ")
        .append(Runtime.getRuntime().availableProcessors())
        .append("; memory: ")
        .append(totalMemory())
        .append("; Java: ")
        .append(System.getProperty("java.runtime.version"))
        .append(" (")
        .append(System.getProperty("java.vm.name"))
        .append(", ")
        .append(System.getProperty("java.vendor"))
        .append("); load average (1, 5, 15 min) at start: ")
        .append(loadAtStart)
        .append(", at end: ")
        .append(loadAverage())
        .append("  \n");
    md.append("Method: every run in a fresh JVM (")
        .append(jvmOptions)
        .append("); per workload and configuration ")
        .append(
            switch (options.warmups()) {
              case 0 -> "no warm-up";
              case 1 -> "one warm-up per engine";
              default -> options.warmups() + " warm-ups per engine";
            })
        .append(" (none for a workload that runs for a fixed time), then ")
        .append(options.runs())
        .append(" rounds alternating ")
        .append(options.engines().stream().map(Engine::id).collect(Collectors.joining(", ")))
        .append("; medians of ")
        .append(options.runs())
        .append(
            "; time = wall time of the job (submission and shutdown included, JVM start"
                + " excluded); parallelism 2; records per run: ");
    md.append(
            options.workloads().stream()
                .map(
                    w ->
                        w.timed()
                            ? w.id()
                                + " timed, about "
                                + w.runFor().toSeconds()
                                + " s a run, then cancelled (no warm-up run; records and rec/s"
                                + " as its notes above say)"
                            : w.id()
                                + " "
                                + String.format(Locale.ROOT, "%,d", options.recordsOf(w)))
                .collect(Collectors.joining(", ")))
        .append(".\n");
    return md.toString();
  }

  /**
   * The median peak RSS in kB of {@code engine} on {@code workload} in {@code config}, if known.
   */
  Optional<Double> medianPeakRssKb(Workload workload, String config, Engine engine) {
    List<Double> kb =
        results.stream()
            .filter(r -> r.workload().equals(workload.id()) && r.config().equals(config))
            .filter(r -> r.engine() == engine && r.peakRssKb().isPresent())
            .map(r -> (double) r.peakRssKb().getAsLong())
            .toList();
    return kb.isEmpty() ? Optional.empty() : Optional.of(Stats.median(kb));
  }

  /**
   * Each child JVM's peak RSS ({@link PeakRss}), Weir against Flink per workload and configuration,
   * in a table of its own so that the main table stays one figure per engine.
   */
  private void renderPeakRss(StringBuilder md) {
    if (results.stream().noneMatch(r -> r.peakRssKb().isPresent())) {
      return;
    }
    md.append("Peak RSS per child JVM (VmHWM of /proc/self/status, read by the child after its")
        .append(" measurement, so JVM start, job and shutdown; median of ")
        .append(options.runs())
        .append("; the same -Xmx for both engines). It is the benchmark JVM only: for W8's")
        .append(" cluster and recovery runs the client JVM, not the JobManager and TaskManager")
        .append(" processes (their sum is W8's clusterPeakRssKb field); for KAFKA and W3S not the")
        .append(" broker or storage helper JVM.\n\n");
    md.append("| workload | configuration | Weir peak RSS | Flink peak RSS | Weir/Flink ratio |\n");
    md.append("| --- | --- | ---: | ---: | ---: |\n");
    for (Workload workload : options.workloads()) {
      for (String config : options.configsOf(workload)) {
        Optional<Double> weir = medianPeakRssKb(workload, config, Engine.WEIR);
        Optional<Double> flink = medianPeakRssKb(workload, config, Engine.FLINK);
        if (weir.isEmpty() && flink.isEmpty()) {
          continue;
        }
        md.append("| ")
            .append(workload.title())
            .append(" | ")
            .append(config)
            .append(" | ")
            .append(PeakRss.mib(weir))
            .append(" | ")
            .append(PeakRss.mib(flink))
            .append(" | ")
            .append(ratio(weir, flink))
            .append(" |\n");
      }
    }
    md.append('\n');
  }

  /**
   * The workload's own {@code RESULT} fields (W4: checkpoint durations), if its runs printed any:
   * one row per configuration and engine, one column per field, each the median of the runs (or,
   * where a field is not a number in some run, its distinct values).
   */
  private void renderExtra(StringBuilder md, Workload workload) {
    List<Result> own = results.stream().filter(r -> r.workload().equals(workload.id())).toList();
    List<String> keys = own.stream().flatMap(r -> r.extra().keySet().stream()).distinct().toList();
    if (keys.isEmpty()) {
      return;
    }
    md.append(workload.title())
        .append(", per engine (medians of ")
        .append(options.runs())
        .append(workload.notes().isEmpty() ? "" : "; " + workload.notes())
        .append("):\n\n");
    md.append("| configuration | engine | rec/s");
    keys.forEach(key -> md.append(" | ").append(key));
    md.append(" |\n| --- | --- | ---:");
    keys.forEach(key -> md.append(" | ---:"));
    md.append(" |\n");
    for (String config : options.configsOf(workload)) {
      for (Engine engine : Engine.values()) {
        List<Result> runs =
            own.stream().filter(r -> r.config().equals(config) && r.engine() == engine).toList();
        if (runs.isEmpty()) {
          continue;
        }
        md.append("| ")
            .append(config)
            .append(" | ")
            .append(engine.displayName())
            .append(" | ")
            .append(rate(Stats.median(runs.stream().map(Result::recordsPerSecond).toList())));
        for (String key : keys) {
          md.append(" | ").append(extraFigure(runs, key));
        }
        md.append(" |\n");
      }
    }
    md.append('\n');
  }

  /**
   * For a workload {@linkplain Workload#comparedWith() compared with} another (W5 with W3): each
   * engine's median job time against the other workload's in the same configuration, or how to get
   * that when the other was not run alike.
   */
  private void renderComparison(StringBuilder md, Workload workload) {
    if (workload.comparedWith().isEmpty()) {
      return;
    }
    Workload other = Workloads.byId(workload.comparedWith());
    boolean comparable =
        options.workloads().contains(other)
            && options.recordsOf(other) == options.recordsOf(workload);
    for (String config : options.configsOf(workload)) {
      md.append("- ").append(workload.title()).append(", ").append(config).append(": ");
      List<String> figures = new ArrayList<>();
      for (Engine engine : List.of(Engine.WEIR, Engine.FLINK)) {
        Optional<Double> own = medianSeconds(workload.id(), config, engine);
        Optional<Double> base = medianSeconds(other.id(), config, engine);
        if (comparable && own.isPresent() && base.isPresent()) {
          figures.add(
              String.format(
                  Locale.ROOT,
                  "%s %.2f s against %.2f s (%+.1f %%)",
                  engine.displayName(),
                  own.get(),
                  base.get(),
                  (own.get() / base.get() - 1) * 100));
        }
      }
      if (figures.isEmpty()) {
        md.append("no ")
            .append(other.title())
            .append(" run of this configuration and record count to set the job time against;")
            .append(" run both in one invocation (--workloads ")
            .append(other.id())
            .append(',')
            .append(workload.id())
            .append(").\n");
      } else {
        md.append("total job time against ")
            .append(other.title())
            .append(" (the same job without the failure): ")
            .append(String.join(", ", figures))
            .append(".\n");
      }
    }
  }

  private static String extraFigure(List<Result> runs, String key) {
    List<String> values =
        runs.stream().map(r -> r.extra().getOrDefault(key, "n/a")).distinct().toList();
    List<Double> numbers = new ArrayList<>();
    for (Result r : runs) {
      try {
        numbers.add(Double.parseDouble(r.extra().getOrDefault(key, "")));
      } catch (NumberFormatException e) {
        return String.join(" / ", values);
      }
    }
    double median = Stats.median(numbers);
    return median == Math.rint(median)
        ? String.format(Locale.ROOT, "%.0f", median)
        : String.format(Locale.ROOT, "%.1f", median);
  }

  /** Records per second, with a unit: {@code 1.42 M}. */
  static String rate(double perSecond) {
    if (perSecond >= 1e6) {
      return String.format(Locale.ROOT, "%.2f M", perSecond / 1e6);
    }
    if (perSecond >= 1e3) {
      return String.format(Locale.ROOT, "%.1f k", perSecond / 1e3);
    }
    return String.format(Locale.ROOT, "%.0f", perSecond);
  }

  private static String ratio(Optional<Double> weir, Optional<Double> flink) {
    if (weir.isEmpty() || flink.isEmpty()) {
      return "n/a";
    }
    return String.format(Locale.ROOT, "%.2f", weir.get() / flink.get());
  }

  private static String percent(double fraction) {
    return String.format(Locale.ROOT, "%.1f %%", fraction * 100);
  }

  /**
   * The machine's load averages from {@code /proc/loadavg}: work of other processes during the runs
   * shows here, and makes the figures incomparable.
   */
  static String loadAverage() {
    try {
      String[] fields = Files.readString(Path.of("/proc/loadavg")).strip().split(" ", 4);
      return fields[0] + " " + fields[1] + " " + fields[2];
    } catch (IOException | RuntimeException e) {
      return "unknown";
    }
  }

  static String totalMemory() {
    if (ManagementFactory.getOperatingSystemMXBean()
        instanceof com.sun.management.OperatingSystemMXBean os) {
      return String.format(Locale.ROOT, "%.1f GiB", os.getTotalMemorySize() / (double) (1L << 30));
    }
    return "unknown";
  }
}

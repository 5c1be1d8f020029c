package io.weir.benchmarks;

import java.io.IOException;
import java.math.BigDecimal;
import java.math.MathContext;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Regenerates the tables of {@code BENCHMARKS.md} from the results file ({@link ResultsFile}): the
 * part between {@value #BEGIN} and {@value #END}, and nothing else of the document. For every
 * workload, configuration and record count, the newest Weir record and the newest Flink record,
 * their figures side by side with the ratio, and the commit, date and number of runs each came
 * from; the newest plain-Java limit as a line under its workload's table. The output depends on the
 * records only, sorted, with no clock in it: regenerating without new records changes nothing.
 *
 * <pre>
 * ResultsTable [--results benchmarks/results.jsonl] [--benchmarks BENCHMARKS.md] [--check]
 * </pre>
 *
 * <p>Paths are relative to the working directory (the repository root, where {@code
 * weir-benchmarks/results-table.sh} runs it). {@code --check} writes nothing and exits with 1 when
 * the document is not what the results give. Exits with 2 on a bad command line, a results line
 * that is not a record, or a document without the two markers.
 */
public final class ResultsTable {
  static final String BEGIN = "<!-- results:begin -->";
  static final String END = "<!-- results:end -->";

  static final String USAGE =
      "Usage: ResultsTable [--results benchmarks/results.jsonl] [--benchmarks BENCHMARKS.md]"
          + " [--check]";

  /** Figures in the order a row group lists them; any other after these, by name. */
  private static final List<String> FIGURE_ORDER =
      List.of(
          "recordsPerSecond",
          "opsPerSecond",
          "p50Ms",
          "p99Ms",
          "p999Ms",
          "maxMs",
          "sourceLagMaxMs",
          "recoveryMs",
          "failedMs",
          "resumeMs",
          "processingGapMs",
          "outputGapMs",
          "stoppedMs",
          "leaderGoneMs",
          "leaderChangeMs",
          "takeoverMs",
          "takeMs",
          "restoreMs",
          "startMs",
          "seconds",
          "baselineSeconds",
          "snapshotSyncUs",
          "cpP50Ms",
          "cpMaxMs",
          "lastCpMs",
          "alignMaxMs",
          "inflightMaxBytes",
          "lastCpStateBytes",
          "lastCpUploadedBytes",
          "uploadedP50Bytes",
          "savepointBytes",
          "nativeTakeMs",
          "nativeBytes",
          "peakRssBytes",
          "clusterPeakRssBytes");

  /** Workloads measured outside the runner, which its registry does not name. */
  private static final Map<String, String> OTHER_NAMES =
      Map.of("W6", "snapshot-pause-and-state-access (JMH)");

  private static final Pattern NUMBERED = Pattern.compile("W(\\d+)(.*)");
  private static final DateTimeFormatter SHOWN_DATE =
      DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm 'UTC'", Locale.ROOT).withZone(ZoneOffset.UTC);
  private static final String NONE = "—";
  private static final int WIDTH = 100;

  private ResultsTable() {}

  public static void main(String[] args) throws IOException {
    Path results = ResultsFile.DEFAULT;
    Path benchmarks = Path.of("BENCHMARKS.md");
    boolean check = false;
    for (int i = 0; i < args.length; i++) {
      switch (args[i]) {
        case "--check" -> check = true;
        case "--results", "--benchmarks" -> {
          if (i + 1 >= args.length) {
            exit(2, "Option " + args[i] + " needs a file. " + USAGE);
          }
          Path file = Path.of(args[i + 1]);
          if (args[i].equals("--results")) {
            results = file;
          } else {
            benchmarks = file;
          }
          i++;
        }
        default -> exit(2, "Unknown option " + args[i] + ". " + USAGE);
      }
    }
    if (!Files.isRegularFile(benchmarks)) {
      exit(2, "No " + benchmarks + " here: run from the repository root, or give --benchmarks.");
    }
    List<ResultRecord> records;
    String document = Files.readString(benchmarks, StandardCharsets.UTF_8);
    String regenerated;
    try {
      records = ResultsFile.read(results);
      regenerated = replace(document, render(records));
    } catch (IOException | IllegalArgumentException e) {
      exit(2, e.getMessage());
      return;
    }
    if (regenerated.equals(document)) {
      System.out.printf(
          "%s: up to date with the %d records of %s.%n", benchmarks, records.size(), results);
    } else if (check) {
      exit(
          1,
          benchmarks
              + " is not what the "
              + records.size()
              + " records of "
              + results
              + " give: run weir-benchmarks/results-table.sh.");
    } else {
      Files.writeString(benchmarks, regenerated, StandardCharsets.UTF_8);
      System.out.printf(
          "%s: tables regenerated from the %d records of %s.%n",
          benchmarks, records.size(), results);
    }
  }

  private static void exit(int code, String message) {
    System.err.println(message);
    System.exit(code);
  }

  /**
   * {@code document} with what lies between the markers replaced by {@code generated}; the markers
   * themselves and everything outside them are kept as they are.
   *
   * @throws IllegalArgumentException if either marker is missing, twice there, or out of order
   */
  static String replace(String document, String generated) {
    int begin = document.indexOf(BEGIN);
    int end = document.indexOf(END);
    if (begin < 0
        || end < begin
        || document.indexOf(BEGIN, begin + 1) >= 0
        || document.indexOf(END, end + 1) >= 0) {
      throw new IllegalArgumentException(
          "The document needs one "
              + BEGIN
              + " line and, after it, one "
              + END
              + " line around the generated tables; put them where the tables go.");
    }
    return document.substring(0, begin + BEGIN.length())
        + "\n"
        + generated
        + document.substring(end);
  }

  /** The generated Markdown for {@code records}: ends with a line break. */
  static String render(List<ResultRecord> records) {
    Map<Key, Map<String, ResultRecord>> newest = new TreeMap<>();
    for (ResultRecord record : records) {
      Map<String, ResultRecord> byEngine =
          newest.computeIfAbsent(Key.of(record), k -> new HashMap<>());
      ResultRecord current = byEngine.get(record.engine());
      // Of two records of the same instant, the later line wins.
      if (current == null || !record.instant().isBefore(current.instant())) {
        byEngine.put(record.engine(), record);
      }
    }
    StringBuilder md = new StringBuilder();
    md.append("<!-- Generated by io.weir.benchmarks.ResultsTable: edit the results file. -->\n\n");
    wrap(
        md,
        "The newest Weir and Flink record of each workload, record count and configuration in"
            + " `benchmarks/results.jsonl`. Each figure is the median of the runs given; Weir/Flink"
            + " divides the two (for rates above 1 is Weir ahead, for times, sizes and latencies"
            + " below 1). A record names the commit it measured: an older one stands until that"
            + " configuration is run again.",
        "");
    String workload = null;
    boolean tableOpen = false;
    List<String> limits = new ArrayList<>();
    for (var entry : newest.entrySet()) {
      Key key = entry.getKey();
      if (!key.workload().equals(workload)) {
        flushLimits(md, limits);
        workload = key.workload();
        tableOpen = false;
        md.append("\n### ").append(title(workload)).append('\n');
      }
      Map<String, ResultRecord> byEngine = entry.getValue();
      Optional<ResultRecord> weir = Optional.ofNullable(byEngine.get(Engine.WEIR.id()));
      Optional<ResultRecord> flink = Optional.ofNullable(byEngine.get(Engine.FLINK.id()));
      if (weir.isPresent() || flink.isPresent()) {
        if (!tableOpen) {
          md.append(
                  "\n| configuration | records | figure | Weir | Flink | Weir/Flink | measured |\n")
              .append("| --- | ---: | --- | ---: | ---: | ---: | --- |\n");
          tableOpen = true;
        }
        rows(md, key, weir, flink);
      }
      Optional.ofNullable(byEngine.get(Engine.PLAIN.id()))
          .flatMap(plain -> limit(key, plain, weir))
          .ifPresent(limits::add);
    }
    flushLimits(md, limits);
    return md.toString();
  }

  private static void rows(
      StringBuilder md, Key key, Optional<ResultRecord> weir, Optional<ResultRecord> flink) {
    TreeSet<String> names = new TreeSet<>(ResultsTable::compareFigures);
    weir.ifPresent(r -> names.addAll(r.figures().keySet()));
    flink.ifPresent(r -> names.addAll(r.figures().keySet()));
    // An error (JMH's ±) goes into its figure's cell, not a row of its own.
    names.removeIf(name -> name.endsWith("Error") && names.contains(baseOf(name)));
    boolean first = true;
    for (String name : names) {
      Optional<BigDecimal> w = weir.map(r -> r.figures().get(name));
      Optional<BigDecimal> f = flink.map(r -> r.figures().get(name));
      md.append("| ")
          .append(first ? key.configuration() : "")
          .append(" | ")
          .append(first && key.records() != null ? grouped(key.records()) : "")
          .append(" | ")
          .append(name)
          .append(" | ")
          .append(cell(name, weir))
          .append(" | ")
          .append(cell(name, flink))
          .append(" | ")
          .append(ratio(w, f))
          .append(" | ")
          .append(first ? measured(weir, flink) : "")
          .append(" |\n");
      first = false;
    }
  }

  private static Optional<String> limit(Key key, ResultRecord plain, Optional<ResultRecord> weir) {
    BigDecimal rate = plain.figures().get("recordsPerSecond");
    if (rate == null) {
      return Optional.empty();
    }
    StringBuilder line =
        new StringBuilder("- Plain-Java limit (no framework, one thread per core), ")
            .append(key.configuration());
    if (key.records() != null) {
      line.append(", ").append(grouped(key.records())).append(" records");
    }
    line.append(": ")
        .append(Report.rate(rate.doubleValue()))
        .append(" rec/s (")
        .append(provenance(plain))
        .append(")");
    weir.map(r -> r.figures().get("recordsPerSecond"))
        .ifPresent(
            w ->
                line.append("; Weir at ")
                    .append(
                        String.format(
                            Locale.ROOT, "%.1f %%", 100 * w.doubleValue() / rate.doubleValue()))
                    .append(" of it"));
    return Optional.of(line.append(".").toString());
  }

  private static void flushLimits(StringBuilder md, List<String> limits) {
    if (!limits.isEmpty()) {
      md.append('\n');
      limits.forEach(line -> wrap(md, line, "  "));
      limits.clear();
    }
  }

  private static String cell(String name, Optional<ResultRecord> record) {
    if (record.isEmpty() || !record.get().figures().containsKey(name)) {
      return NONE;
    }
    Map<String, BigDecimal> figures = record.get().figures();
    String value = value(name, figures.get(name));
    BigDecimal error = figures.get(name + "Error");
    return error == null ? value : value + " ± " + value(name, error);
  }

  private static String ratio(Optional<BigDecimal> weir, Optional<BigDecimal> flink) {
    if (weir.isEmpty() || flink.isEmpty() || flink.get().signum() == 0) {
      return NONE;
    }
    double ratio = weir.get().doubleValue() / flink.get().doubleValue();
    // Two significant digits below 0.1, so that 0.05 ms against 80 ms reads 0.00063, not 0.00.
    return ratio >= 0.1 || ratio == 0
        ? String.format(Locale.ROOT, "%.2f", ratio)
        : BigDecimal.valueOf(ratio).round(new MathContext(2)).toPlainString();
  }

  /**
   * Appends {@code text} as lines of at most {@value #WIDTH} characters, broken at spaces; the
   * lines after the first start with {@code indent} (a list item's continuation).
   */
  private static void wrap(StringBuilder md, String text, String indent) {
    StringBuilder line = new StringBuilder();
    for (String word : text.split(" ")) {
      if (line.length() > 0 && line.length() + 1 + word.length() > WIDTH) {
        md.append(line).append('\n');
        line.setLength(0);
        line.append(indent);
      }
      if (line.length() > 0 && !line.toString().equals(indent)) {
        line.append(' ');
      }
      line.append(word);
    }
    md.append(line).append('\n');
  }

  /** Where the row group's figures come from: once when both engines share it. */
  private static String measured(Optional<ResultRecord> weir, Optional<ResultRecord> flink) {
    if (weir.isPresent() && flink.isPresent()) {
      String w = provenance(weir.get());
      String f = provenance(flink.get());
      return w.equals(f) ? w : "Weir " + w + "; Flink " + f;
    }
    return weir.map(r -> "Weir " + provenance(r))
        .orElseGet(() -> "Flink " + provenance(flink.orElseThrow()));
  }

  private static String provenance(ResultRecord record) {
    return "`"
        + record.commit()
        + "` "
        + SHOWN_DATE.format(record.instant())
        + ", "
        + record.runs()
        + (record.runs() == 1 ? " run" : " runs");
  }

  /** A figure with its unit, read from the end of its name. */
  static String value(String name, BigDecimal value) {
    double v = value.doubleValue();
    if (name.endsWith("PerSecond")) {
      return Report.rate(v);
    } else if (name.endsWith("RssBytes")) {
      return String.format(Locale.ROOT, "%.0f MiB", v / (1 << 20));
    } else if (name.endsWith("Bytes")) {
      return bytes(v);
    } else if (name.endsWith("Ms")) {
      return value.toPlainString() + " ms";
    } else if (name.endsWith("Us")) {
      return value.toPlainString() + " µs";
    } else if (name.equals("seconds") || name.endsWith("Seconds")) {
      return String.format(Locale.ROOT, "%.2f s", v);
    } else if (v >= 10_000 && v == Math.rint(v)) {
      return grouped(value.longValue());
    }
    return value.toPlainString();
  }

  private static String bytes(double bytes) {
    if (bytes >= 1e9) {
      return String.format(Locale.ROOT, "%.2f GB", bytes / 1e9);
    } else if (bytes >= 1e6) {
      return String.format(Locale.ROOT, "%.1f MB", bytes / 1e6);
    } else if (bytes >= 1e3) {
      return String.format(Locale.ROOT, "%.1f kB", bytes / 1e3);
    }
    return String.format(Locale.ROOT, "%.0f B", bytes);
  }

  private static String grouped(long number) {
    return String.format(Locale.ROOT, "%,d", number).replace(',', ' ');
  }

  private static String baseOf(String errorName) {
    return errorName.substring(0, errorName.length() - "Error".length());
  }

  private static int compareFigures(String a, String b) {
    int ia = FIGURE_ORDER.indexOf(a);
    int ib = FIGURE_ORDER.indexOf(b);
    if (ia >= 0 || ib >= 0) {
      return Integer.compare(ia < 0 ? Integer.MAX_VALUE : ia, ib < 0 ? Integer.MAX_VALUE : ib);
    }
    return a.compareTo(b);
  }

  private static String title(String workload) {
    if (OTHER_NAMES.containsKey(workload)) {
      return workload + " " + OTHER_NAMES.get(workload);
    }
    return registered(workload).map(Workload::title).orElse(workload);
  }

  private static Optional<Workload> registered(String workload) {
    return Workloads.all().stream().filter(w -> w.id().equals(workload)).findFirst();
  }

  /**
   * A row group: the figures of one workload in one configuration over one record count. Ordered
   * W1, W2, W3, W3S, ... W8, then the named workloads alphabetically; within a workload, by record
   * count, then the configurations in the order the workload lists them (others after, by name).
   */
  private record Key(String workload, String configuration, Long records)
      implements Comparable<Key> {
    private static final Comparator<Key> ORDER =
        Comparator.comparing((Key k) -> workloadRank(k.workload()))
            .thenComparing(Key::workload)
            .thenComparing(Key::records, Comparator.nullsFirst(Comparator.naturalOrder()))
            .thenComparing(k -> configurationRank(k.workload(), k.configuration()))
            .thenComparing(Key::configuration);

    static Key of(ResultRecord record) {
      return new Key(record.workload(), record.configuration(), record.records());
    }

    @Override
    public int compareTo(Key other) {
      return ORDER.compare(this, other);
    }

    /** W-numbered workloads first, by number; the rest after. */
    private static long workloadRank(String workload) {
      Matcher m = NUMBERED.matcher(workload);
      return m.matches() ? Long.parseLong(m.group(1)) : Long.MAX_VALUE;
    }

    private static int configurationRank(String workload, String configuration) {
      int index = registered(workload).map(w -> w.configs().indexOf(configuration)).orElse(-1);
      return index < 0 ? Integer.MAX_VALUE : index;
    }
  }
}

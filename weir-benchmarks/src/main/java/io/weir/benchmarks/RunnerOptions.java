package io.weir.benchmarks;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * The command line of {@link SideBySide}:
 *
 * <pre>
 * --workloads W1[,W2..]   workloads to run (default W1)
 * --runs 3                measured runs per engine and configuration (default 3)
 * --warmups 1             unmeasured runs per engine and configuration before them (default 1;
 *                         0 for runs long enough that the JIT's warm-up is a small part of them)
 * --records 20000000      records per run (default: each workload's own)
 * --configs off[,cp1s]    configurations (default: all the workload has)
 * --queries q0[,q5..]     NEXMARK only: these queries, each in the configurations given as
 *                         variants by --configs (heap, cp10s, rocksdb, rocksdb-cp10s; default heap)
 * --xmx 4g                heap of every child JVM (default 4g)
 * --engines weir,flink,plain  engines to run (default all)
 * --jvm-args "-Xms4g -XX:+AlwaysPreTouch"  further options for every child JVM (default none)
 * --timeout 900           seconds a child may take before it counts as failed (default 900)
 * --results FILE          append a record per engine, workload and configuration to this results
 *                         file (default benchmarks/results.jsonl at the repository root)
 * --no-results            append none (smoke runs, diagnoses by hand)
 * </pre>
 *
 * @param results the results file to append to ({@link ResultsFile}): relative to the repository
 *     root for the default, absolute when given; empty for none
 */
record RunnerOptions(
    List<Workload> workloads,
    int runs,
    int warmups,
    OptionalLong records,
    List<String> configs,
    String xmx,
    Set<Engine> engines,
    List<String> jvmArgs,
    long timeoutSeconds,
    Optional<Path> results) {

  static final String USAGE =
      "Usage: SideBySide [--workloads W1[,W2..]] [--runs 3] [--warmups 1] [--records N]"
          + " [--configs off[,cp1s]]"
          + " [--queries q0[,q5..]]"
          + " [--xmx 4g] [--engines weir,flink,plain] [--jvm-args \"-XX:...\"] [--timeout 900]"
          + " [--results benchmarks/results.jsonl | --no-results]";

  private static final Pattern COMMA = Pattern.compile(",");
  private static final Pattern SPACES = Pattern.compile("\\s+");

  static RunnerOptions parse(String[] args) {
    List<Workload> workloads = List.of(Workloads.W1);
    int runs = 3;
    int warmups = 1;
    OptionalLong records = OptionalLong.empty();
    List<String> configs = List.of();
    List<String> queries = List.of();
    String xmx = "4g";
    Set<Engine> engines = EnumSet.allOf(Engine.class);
    List<String> jvmArgs = List.of();
    long timeoutSeconds = 900;
    Optional<Path> results = Optional.of(ResultsFile.DEFAULT);

    for (int i = 0; i < args.length; i++) {
      String option = args[i];
      if (option.equals("--help") || option.equals("-h")) {
        throw new IllegalArgumentException(USAGE);
      }
      if (option.equals("--no-results")) {
        results = Optional.empty();
        continue;
      }
      if (i + 1 >= args.length) {
        throw new IllegalArgumentException("Option " + option + " needs a value. " + USAGE);
      }
      String value = args[++i];
      switch (option) {
        case "--workloads" -> {
          List<Workload> chosen = new ArrayList<>();
          for (String id : list(value)) {
            chosen.add(Workloads.byId(id));
          }
          workloads = chosen;
        }
        case "--runs" -> runs = positiveInt(option, value);
        case "--warmups" -> warmups = nonNegativeInt(option, value);
        case "--records" -> records = OptionalLong.of(positiveLong(option, value));
        case "--configs" -> configs = list(value);
        case "--queries" -> queries = list(value);
        case "--xmx" -> {
          if (!value.matches("\\d+[kKmMgG]?")) {
            throw new IllegalArgumentException(
                "--xmx takes a heap size such as 4g, not '" + value + "'.");
          }
          xmx = value;
        }
        case "--engines" -> {
          Set<Engine> chosen = EnumSet.noneOf(Engine.class);
          for (String id : list(value)) {
            chosen.add(Engine.fromId(id));
          }
          engines = chosen;
        }
        case "--jvm-args" -> jvmArgs = SPACES.splitAsStream(value.strip()).toList();
        case "--timeout" -> timeoutSeconds = positiveLong(option, value);
        // Given on the command line: relative to where the runner was started, as any path there.
        case "--results" -> results = Optional.of(Path.of(value).toAbsolutePath());
        default -> throw new IllegalArgumentException("Unknown option " + option + ". " + USAGE);
      }
    }
    if (!queries.isEmpty()) {
      configs = nexmarkConfigs(queries, configs);
    }
    for (Workload workload : workloads) {
      for (String config : configs) {
        if (!workload.configs().contains(config)) {
          throw new IllegalArgumentException(
              "Workload "
                  + workload.id()
                  + " has no configuration '"
                  + config
                  + "'; it has "
                  + String.join(", ", workload.configs())
                  + ".");
        }
      }
    }
    return new RunnerOptions(
        workloads, runs, warmups, records, configs, xmx, engines, jvmArgs, timeoutSeconds, results);
  }

  /**
   * {@code --queries q0,q5 --configs heap,cp10s}: q0, q0-cp10s, q5, q5-cp10s (each query in each
   * variant; {@code heap} is no suffix).
   */
  static List<String> nexmarkConfigs(List<String> queries, List<String> variants) {
    List<String> configs = new ArrayList<>();
    for (String query : queries) {
      for (String variant : variants.isEmpty() ? List.of("heap") : variants) {
        configs.add(variant.equals("heap") ? query : query + "-" + variant);
      }
    }
    return configs;
  }

  /** The configurations to run {@code workload} in: those asked for, else all it has. */
  List<String> configsOf(Workload workload) {
    return configs.isEmpty() ? workload.configs() : configs;
  }

  long recordsOf(Workload workload) {
    return records.orElse(workload.defaultRecords());
  }

  private static List<String> list(String value) {
    List<String> items = new ArrayList<>();
    for (String item : COMMA.splitAsStream(value).toList()) {
      if (!item.isBlank()) {
        items.add(item.strip());
      }
    }
    if (items.isEmpty()) {
      throw new IllegalArgumentException("Empty list '" + value + "'. " + USAGE);
    }
    return items;
  }

  private static int positiveInt(String option, String value) {
    long parsed = positiveLong(option, value);
    if (parsed > Integer.MAX_VALUE) {
      throw new IllegalArgumentException(option + " is too large: " + value + ".");
    }
    return (int) parsed;
  }

  private static int nonNegativeInt(String option, String value) {
    if (value.strip().startsWith("-")) {
      throw new IllegalArgumentException(option + " must be 0 or more, not " + value + ".");
    }
    return value.equals("0") ? 0 : positiveInt(option, value);
  }

  private static long positiveLong(String option, String value) {
    long parsed;
    try {
      parsed = Long.parseLong(value.replace("_", ""));
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(option + " takes a whole number, not '" + value + "'.", e);
    }
    if (parsed < 1) {
      throw new IllegalArgumentException(option + " must be at least 1, not " + value + ".");
    }
    return parsed;
  }
}

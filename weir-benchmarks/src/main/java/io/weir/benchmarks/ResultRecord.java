package io.weir.benchmarks;

import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import java.math.BigDecimal;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.Collections;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * One line of the results file ({@code benchmarks/results.jsonl}, see {@link ResultsFile}): the
 * figures of one engine on one workload in one configuration, from one invocation, with where, when
 * and how they were measured. {@code docs/performance/README.md} describes the format.
 *
 * @param commit the commit measured, {@code git rev-parse --short HEAD} plus {@code -dirty} when
 *     the tree had uncommitted changes; {@code unknown} without git
 * @param date when the invocation started, ISO-8601 in UTC ({@code 2026-12-03T19:34:00Z})
 * @param engine {@code weir}, {@code flink} or {@code plain} (the framework-free limit)
 * @param workload the runner's workload id: {@code W1}, {@code NEXMARK}, {@code KAFKA-LATENCY}, ...
 * @param configuration the runner's configuration id: {@code off}, {@code cp1s}, {@code
 *     q5-rocksdb-cp10s}, ...
 * @param records records per run as the runner was given them; {@code null} for a workload whose
 *     source is unbounded (W4)
 * @param runs how many measured runs the figures are medians of
 * @param figures name to value, the unit in the name: {@code recordsPerSecond}, {@code p99Ms},
 *     {@code peakRssBytes}, ...; a name without a unit is a count
 * @param command the whole command line that produced it
 * @param machine what is known of the machine: {@code cores}, {@code memory}, {@code jdk}, {@code
 *     os}, {@code cpu}, the load average at the start and end, ...
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
@JsonPropertyOrder({
  "commit",
  "date",
  "engine",
  "workload",
  "configuration",
  "records",
  "runs",
  "figures",
  "command",
  "machine"
})
public record ResultRecord(
    String commit,
    String date,
    String engine,
    String workload,
    String configuration,
    Long records,
    int runs,
    SortedMap<String, BigDecimal> figures,
    String command,
    Map<String, Object> machine) {

  public ResultRecord {
    required("commit", commit);
    required("date", date);
    required("engine", engine);
    required("workload", workload);
    required("configuration", configuration);
    required("command", command);
    try {
      Instant.parse(date);
    } catch (DateTimeParseException e) {
      throw new IllegalArgumentException(
          "A result record's date is ISO-8601 in UTC, such as 2026-12-03T19:34:00Z, not '"
              + date
              + "'.",
          e);
    }
    if (runs < 1) {
      throw new IllegalArgumentException("A result record is of at least one run, not " + runs);
    }
    if (figures == null || figures.isEmpty()) {
      throw new IllegalArgumentException(
          "A result record of "
              + engine
              + " on "
              + workload
              + " "
              + configuration
              + " has no figure.");
    }
    SortedMap<String, BigDecimal> normalized = new TreeMap<>();
    // Trailing zeros stripped, so that a record reads back equal to the one written.
    figures.forEach((name, value) -> normalized.put(name, value.stripTrailingZeros()));
    figures = Collections.unmodifiableSortedMap(normalized);
    machine =
        Collections.unmodifiableSortedMap(new TreeMap<>(machine == null ? Map.of() : machine));
  }

  private static void required(String name, String value) {
    if (value == null || value.isBlank()) {
      throw new IllegalArgumentException("A result record needs a " + name + ".");
    }
  }

  /** {@link #date} as an instant. */
  @JsonIgnore
  public Instant instant() {
    return Instant.parse(date);
  }
}

package io.weir.benchmarks;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * One measurement, as a child JVM prints it on a single line and {@link SideBySide} reads it back:
 *
 * <pre>
 * RESULT engine=weir workload=W1 config=off records=20000000 seconds=12.345 recordsPerSecond=1620089
 * </pre>
 *
 * <p>A workload may add fields of its own after these, {@code key=value} with no spaces in either
 * (W4: {@code cpP50=… cpMax=… alignMax=… completed=…}); they are kept in order in {@link #extra}
 * and the report shows them in a table of their own.
 *
 * @param seconds wall time of the job: submission and shutdown included, JVM start excluded
 * @param peakRssKb the child JVM's peak resident set size in kB ({@link PeakRss}): the child prints
 *     it on a line of its own after the {@code RESULT}, and {@link ChildJvm} adds it; a line
 *     carries it as {@code peakRssKb=}; empty where it was not measured
 * @param extra the workload's own fields, in the order printed
 */
public record Result(
    Engine engine,
    String workload,
    String config,
    long records,
    double seconds,
    double recordsPerSecond,
    OptionalLong peakRssKb,
    Map<String, String> extra) {

  static final String PREFIX = "RESULT ";
  private static final Pattern SPACES = Pattern.compile("\\s+");
  private static final Set<String> FIXED =
      Set.of("engine", "workload", "config", "records", "seconds", "recordsPerSecond", "peakRssKb");

  public Result {
    extra = Collections.unmodifiableMap(new LinkedHashMap<>(extra));
  }

  /** A result measured over {@code nanos} nanoseconds. */
  public static Result of(Engine engine, String workload, String config, long records, long nanos) {
    double seconds = nanos / 1e9;
    return new Result(
        engine,
        workload,
        config,
        records,
        seconds,
        records / seconds,
        OptionalLong.empty(),
        Map.of());
  }

  /** This result with one more field, {@code key=value}, after those it has. */
  public Result with(String key, String value) {
    if (FIXED.contains(key)
        || !key.matches("[A-Za-z][A-Za-z0-9]*")
        || value.isEmpty()
        || SPACES.matcher(value).find()
        || value.contains("=")) {
      throw new IllegalArgumentException(
          "Not a field a RESULT line can carry: " + key + "=" + value);
    }
    Map<String, String> fields = new LinkedHashMap<>(extra);
    fields.put(key, value);
    return new Result(
        engine, workload, config, records, seconds, recordsPerSecond, peakRssKb, fields);
  }

  /** This result with the child JVM's peak RSS, {@code kb} kilobytes. */
  public Result withPeakRssKb(long kb) {
    if (kb < 0) {
      throw new IllegalArgumentException("A peak RSS is not negative: " + kb + " kB");
    }
    return new Result(
        engine, workload, config, records, seconds, recordsPerSecond, OptionalLong.of(kb), extra);
  }

  /** The line a child prints: exactly one per run, on standard output. */
  public String line() {
    StringBuilder line =
        new StringBuilder(
            String.format(
                Locale.ROOT,
                "%sengine=%s workload=%s config=%s records=%d seconds=%.3f recordsPerSecond=%.0f",
                PREFIX,
                engine.id(),
                workload,
                config,
                records,
                seconds,
                recordsPerSecond));
    peakRssKb.ifPresent(kb -> line.append(" peakRssKb=").append(kb));
    extra.forEach((key, value) -> line.append(' ').append(key).append('=').append(value));
    return line.toString();
  }

  /** Prints {@link #line()} to standard output. */
  public void print() {
    System.out.println(line());
  }

  /** Reads a {@code RESULT} line; any other line, or a malformed one, gives empty. */
  public static Optional<Result> parse(String line) {
    String trimmed = line.strip();
    if (!trimmed.startsWith(PREFIX)) {
      return Optional.empty();
    }
    Map<String, String> fields = new LinkedHashMap<>();
    for (String field : SPACES.splitAsStream(trimmed.substring(PREFIX.length())).toList()) {
      int eq = field.indexOf('=');
      if (eq > 0) {
        fields.put(field.substring(0, eq), field.substring(eq + 1));
      }
    }
    Map<String, String> extra = new LinkedHashMap<>(fields);
    extra.keySet().removeAll(FIXED);
    try {
      String rss = fields.get("peakRssKb");
      return Optional.of(
          new Result(
              Engine.fromId(required(fields, "engine")),
              required(fields, "workload"),
              required(fields, "config"),
              Long.parseLong(required(fields, "records")),
              Double.parseDouble(required(fields, "seconds")),
              Double.parseDouble(required(fields, "recordsPerSecond")),
              rss == null ? OptionalLong.empty() : OptionalLong.of(Long.parseLong(rss)),
              extra));
    } catch (IllegalArgumentException e) { // NumberFormatException included
      return Optional.empty();
    }
  }

  private static String required(Map<String, String> fields, String key) {
    String value = fields.get(key);
    if (value == null) {
      throw new IllegalArgumentException("missing " + key);
    }
    return value;
  }
}

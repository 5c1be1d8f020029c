package io.weir.benchmarks;

import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * One measurement, as a child JVM prints it on a single line and {@link SideBySide} reads it back:
 *
 * <pre>
 * RESULT engine=weir workload=W1 config=off records=20000000 seconds=12.345 recordsPerSecond=1620089
 * </pre>
 *
 * @param seconds wall time of the job: submission and shutdown included, JVM start excluded
 */
public record Result(
    Engine engine,
    String workload,
    String config,
    long records,
    double seconds,
    double recordsPerSecond) {

  static final String PREFIX = "RESULT ";
  private static final Pattern SPACES = Pattern.compile("\\s+");

  /** A result measured over {@code nanos} nanoseconds. */
  public static Result of(Engine engine, String workload, String config, long records, long nanos) {
    double seconds = nanos / 1e9;
    return new Result(engine, workload, config, records, seconds, records / seconds);
  }

  /** The line a child prints: exactly one per run, on standard output. */
  public String line() {
    return String.format(
        Locale.ROOT,
        "%sengine=%s workload=%s config=%s records=%d seconds=%.3f recordsPerSecond=%.0f",
        PREFIX,
        engine.id(),
        workload,
        config,
        records,
        seconds,
        recordsPerSecond);
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
    Map<String, String> fields = new HashMap<>();
    for (String field : SPACES.splitAsStream(trimmed.substring(PREFIX.length())).toList()) {
      int eq = field.indexOf('=');
      if (eq > 0) {
        fields.put(field.substring(0, eq), field.substring(eq + 1));
      }
    }
    try {
      return Optional.of(
          new Result(
              Engine.fromId(required(fields, "engine")),
              required(fields, "workload"),
              required(fields, "config"),
              Long.parseLong(required(fields, "records")),
              Double.parseDouble(required(fields, "seconds")),
              Double.parseDouble(required(fields, "recordsPerSecond"))));
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

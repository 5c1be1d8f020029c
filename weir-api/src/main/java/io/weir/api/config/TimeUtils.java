package io.weir.api.config;

import java.time.Duration;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Parses durations the way Flink's configuration does: {@code 100}, {@code 100 ms}, {@code 1s}. */
public final class TimeUtils {

  private static final Pattern DURATION = Pattern.compile("(-?\\d+)\\s*([a-zA-Zµ]*)");

  private TimeUtils() {}

  /**
   * A number with an optional unit (ms, s, min, h, d and their long forms); bare numbers are ms.
   */
  public static Duration parseDuration(String text) {
    Matcher m = DURATION.matcher(text.trim());
    if (!m.matches()) {
      throw new IllegalArgumentException("expected a duration like '100 ms', '1 s' or '10 min'");
    }
    long value = Long.parseLong(m.group(1));
    String unit = m.group(2).toLowerCase(Locale.ROOT);
    return switch (unit) {
      case "", "ms", "milli", "millis", "millisecond", "milliseconds" -> Duration.ofMillis(value);
      case "ns", "nano", "nanos", "nanosecond", "nanoseconds" -> Duration.ofNanos(value);
      case "us", "µs", "micro", "micros", "microsecond", "microseconds" ->
          Duration.ofNanos(value * 1000);
      case "s", "sec", "secs", "second", "seconds" -> Duration.ofSeconds(value);
      case "m", "min", "mins", "minute", "minutes" -> Duration.ofMinutes(value);
      case "h", "hour", "hours" -> Duration.ofHours(value);
      case "d", "day", "days" -> Duration.ofDays(value);
      default -> throw new IllegalArgumentException("unknown time unit '" + unit + "'");
    };
  }

  /** The shortest exact textual form of {@code d}, e.g. {@code 10 min}. */
  public static String format(Duration d) {
    long ms = d.toMillis();
    if (ms != 0 && ms % 60_000 == 0) {
      return ms / 60_000 + " min";
    }
    if (ms != 0 && ms % 1000 == 0) {
      return ms / 1000 + " s";
    }
    return ms + " ms";
  }
}

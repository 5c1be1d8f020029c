package io.weir.api.config;

import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A number of bytes, written like Flink's memory sizes: {@code 64mb}, {@code 5 MiB}, {@code 20 kb}.
 * Units are binary (1 kb = 1024 bytes), as in Flink.
 *
 * @param bytes the size in bytes
 */
public record MemorySize(long bytes) {

  private static final Pattern SIZE = Pattern.compile("(\\d+)\\s*([a-zA-Z]*)");

  public MemorySize {
    if (bytes < 0) {
      throw new IllegalArgumentException("A memory size cannot be negative: " + bytes);
    }
  }

  public static MemorySize ofMebiBytes(long mebiBytes) {
    return new MemorySize(mebiBytes << 20);
  }

  public static MemorySize parse(String text) {
    Matcher m = SIZE.matcher(text.trim());
    if (!m.matches()) {
      throw new IllegalArgumentException("expected a size like '20 kb', '64 mb' or '1 gb'");
    }
    long value = Long.parseLong(m.group(1));
    int shift =
        switch (m.group(2).toLowerCase(Locale.ROOT)) {
          case "", "b", "bytes" -> 0;
          case "k", "kb", "kib", "kibibytes" -> 10;
          case "m", "mb", "mib", "mebibytes" -> 20;
          case "g", "gb", "gib", "gibibytes" -> 30;
          case "t", "tb", "tib", "tebibytes" -> 40;
          default -> throw new IllegalArgumentException("unknown size unit '" + m.group(2) + "'");
        };
    return new MemorySize(value << shift);
  }

  @Override
  public String toString() {
    if (bytes != 0 && bytes % (1 << 20) == 0) {
      return (bytes >> 20) + " mb";
    }
    if (bytes != 0 && bytes % 1024 == 0) {
      return (bytes >> 10) + " kb";
    }
    return bytes + " bytes";
  }
}

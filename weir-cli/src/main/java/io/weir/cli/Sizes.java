package io.weir.cli;

import java.util.Locale;

/** Byte counts for people: 512 B, 1.5 KiB, 20.0 MiB. */
final class Sizes {

  private Sizes() {}

  static String format(long bytes) {
    if (bytes < 1024) {
      return bytes + " B";
    }
    String[] units = {"KiB", "MiB", "GiB", "TiB"};
    double value = bytes;
    int unit = -1;
    while (value >= 1024 && unit < units.length - 1) {
      value /= 1024;
      unit++;
    }
    return String.format(Locale.ROOT, "%.1f %s", value, units[unit]);
  }
}

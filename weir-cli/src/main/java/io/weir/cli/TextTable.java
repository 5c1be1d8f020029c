package io.weir.cli;

import java.io.PrintWriter;
import java.util.List;
import java.util.Locale;

/** A table of text columns, each as wide as its widest cell, two spaces apart. */
final class TextTable {

  private TextTable() {}

  /** Prints {@code rows}, the first being the header. */
  static void print(List<String[]> rows, PrintWriter out) {
    int columns = rows.get(0).length;
    int[] widths = new int[columns];
    for (String[] line : rows) {
      for (int i = 0; i < line.length; i++) {
        widths[i] = Math.max(widths[i], line[i].length());
      }
    }
    for (String[] line : rows) {
      StringBuilder b = new StringBuilder();
      for (int i = 0; i < line.length; i++) {
        b.append(String.format(Locale.ROOT, "%-" + widths[i] + "s", line[i]));
        if (i < line.length - 1) {
          b.append("  ");
        }
      }
      out.println(b.toString().stripTrailing());
    }
  }
}

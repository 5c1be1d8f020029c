package io.weir.api.config;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;

/**
 * Reads the subset of YAML that Flink configuration files use: {@code key: value} lines, nested
 * maps by indentation (flattened to dotted keys), comments, and quoted scalars.
 */
final class YamlLite {

  private YamlLite() {}

  static Configuration parse(List<String> lines, String source) {
    Configuration conf = new Configuration();
    Deque<int[]> indents = new ArrayDeque<>();
    Deque<String> prefixes = new ArrayDeque<>();
    int lineNo = 0;
    for (String raw : lines) {
      lineNo++;
      String line = stripComment(raw);
      if (line.isBlank()) {
        continue;
      }
      int indent = 0;
      while (indent < line.length() && line.charAt(indent) == ' ') {
        indent++;
      }
      if (line.charAt(indent) == '\t') {
        throw new IllegalArgumentException(source + ":" + lineNo + ": tabs are not allowed");
      }
      while (!indents.isEmpty() && indents.peek()[0] >= indent) {
        indents.pop();
        prefixes.pop();
      }
      String content = line.trim();
      int colon = content.indexOf(':');
      if (colon <= 0) {
        throw new IllegalArgumentException(
            source + ":" + lineNo + ": expected 'key: value' but found '" + content + "'");
      }
      String key = content.substring(0, colon).trim();
      String value = content.substring(colon + 1).trim();
      String fullKey = prefixes.isEmpty() ? key : prefixes.peek() + "." + key;
      if (value.isEmpty()) {
        indents.push(new int[] {indent});
        prefixes.push(fullKey);
      } else {
        conf.setString(fullKey, unquote(value));
      }
    }
    return conf;
  }

  private static String stripComment(String line) {
    boolean inQuote = false;
    char quote = 0;
    for (int i = 0; i < line.length(); i++) {
      char c = line.charAt(i);
      if (inQuote) {
        if (c == quote) {
          inQuote = false;
        }
      } else if (c == '"' || c == '\'') {
        inQuote = true;
        quote = c;
      } else if (c == '#' && (i == 0 || Character.isWhitespace(line.charAt(i - 1)))) {
        return line.substring(0, i);
      }
    }
    return line;
  }

  private static String unquote(String v) {
    if (v.length() >= 2
        && ((v.startsWith("\"") && v.endsWith("\"")) || (v.startsWith("'") && v.endsWith("'")))) {
      return v.substring(1, v.length() - 1);
    }
    return v;
  }
}

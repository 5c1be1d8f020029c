package io.weir.api.config;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The text of a map-valued setting, as Flink writes one: {@code key1:value1,key2:value2}, or as a
 * YAML flow map {@code {key1: value1, key2: value2}}. A key or value that holds a {@code ,}, {@code
 * :} or quote is put in single quotes, a quote in it doubled ({@code 'a:b':'it''s'}).
 */
final class ConfigMaps {

  private ConfigMaps() {}

  static String format(Map<?, ?> map) {
    StringBuilder text = new StringBuilder();
    for (Map.Entry<?, ?> entry : map.entrySet()) {
      if (text.length() > 0) {
        text.append(',');
      }
      text.append(quoted(String.valueOf(entry.getKey())))
          .append(':')
          .append(quoted(String.valueOf(entry.getValue())));
    }
    return text.toString();
  }

  /**
   * @throws IllegalArgumentException saying what is wrong: an entry without {@code :}, an unclosed
   *     quote
   */
  static Map<String, String> parse(String text) {
    Map<String, String> map = new LinkedHashMap<>();
    String body = text.strip();
    if (body.startsWith("{") && body.endsWith("}")) {
      body = body.substring(1, body.length() - 1); // a YAML flow map: {a: 1, b: 2}
    }
    if (body.isBlank()) {
      return map;
    }
    for (String entry : split(body, ',')) {
      List<String> keyAndValue = split(entry, ':');
      if (keyAndValue.size() != 2) {
        throw new IllegalArgumentException(
            "expected key:value pairs separated by commas (a key or value holding ':' or ','"
                + " in single quotes), but '"
                + entry
                + "' is not one");
      }
      map.put(unquoted(keyAndValue.get(0)), unquoted(keyAndValue.get(1)));
    }
    return map;
  }

  private static String quoted(String s) {
    if (s.indexOf(',') < 0 && s.indexOf(':') < 0 && s.indexOf('\'') < 0 && s.indexOf('"') < 0) {
      return s;
    }
    return "'" + s.replace("'", "''") + "'";
  }

  /** {@code text} split at {@code separator}s outside quotes, each part kept as written. */
  private static List<String> split(String text, char separator) {
    List<String> parts = new ArrayList<>();
    StringBuilder part = new StringBuilder();
    char quote = 0;
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      if (quote != 0) {
        if (c == quote && i + 1 < text.length() && text.charAt(i + 1) == quote) {
          part.append(c).append(c);
          i++;
          continue;
        }
        if (c == quote) {
          quote = 0;
        }
      } else if (c == '\'' || c == '"') {
        quote = c;
      } else if (c == separator) {
        parts.add(part.toString());
        part.setLength(0);
        continue;
      }
      part.append(c);
    }
    if (quote != 0) {
      throw new IllegalArgumentException("a quote (" + quote + ") is not closed in: " + text);
    }
    parts.add(part.toString());
    return parts;
  }

  private static String unquoted(String s) {
    String t = s.strip();
    if (t.length() >= 2
        && (t.charAt(0) == '\'' || t.charAt(0) == '"')
        && t.endsWith(t.substring(0, 1))) {
      String q = t.substring(0, 1);
      return t.substring(1, t.length() - 1).replace(q + q, q);
    }
    return t;
  }
}

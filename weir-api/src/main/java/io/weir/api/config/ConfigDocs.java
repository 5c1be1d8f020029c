package io.weir.api.config;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;

/**
 * The key tables of {@code docs/configuration.md}, rendered from the registry ({@link
 * KnownKeys#byModule()}): one section per module between {@code <!-- keys:MODULE:begin -->} and
 * {@code <!-- keys:MODULE:end -->}. Each module's tests check that its section is what the options
 * render to, so a key added, renamed or described anew cannot leave the docs behind.
 */
public final class ConfigDocs {

  private ConfigDocs() {}

  /** The markdown table of {@code options}, by key. */
  public static String table(Collection<ConfigOption<?>> options) {
    List<ConfigOption<?>> sorted = new ArrayList<>(options);
    sorted.sort(Comparator.comparing(ConfigOption::key));
    StringBuilder out = new StringBuilder("| key | default | description |\n| --- | --- | --- |\n");
    for (ConfigOption<?> option : sorted) {
      String description = option.description().replace("|", "\\|");
      if (!option.deprecatedKeys().isEmpty()) {
        description +=
            " Deprecated names: "
                + String.join(
                    ", ", option.deprecatedKeys().stream().map(k -> "`" + k + "`").toList())
                + ".";
      }
      out.append("| `")
          .append(option.key())
          .append("` | ")
          .append(option.hasDefaultValue() ? "`" + format(option.defaultValue()) + "`" : "none")
          .append(" | ")
          .append(description.strip())
          .append(" |\n");
    }
    return out.toString();
  }

  /** The text of a module's section, markers excluded. */
  public static String section(String module, Collection<ConfigOption<?>> options) {
    return "\n" + table(options) + "\n";
  }

  private static String format(Object value) {
    return value instanceof Duration d ? TimeUtils.format(d) : String.valueOf(value);
  }

  private static String begin(String module) {
    return "<!-- keys:" + module + ":begin -->";
  }

  private static String end(String module) {
    return "<!-- keys:" + module + ":end -->";
  }

  /**
   * What the section of {@code module} in {@code doc} holds now, or null if the doc has no such
   * section.
   */
  public static String current(Path doc, String module) throws IOException {
    String text = Files.readString(doc);
    int from = text.indexOf(begin(module));
    int to = text.indexOf(end(module));
    if (from < 0 || to < from) {
      return null;
    }
    return text.substring(from + begin(module).length(), to);
  }

  /**
   * Rewrites the section of {@code module} in {@code doc} from {@code options}, adding it at the
   * end when the doc has none.
   */
  public static void write(Path doc, String module, Collection<ConfigOption<?>> options)
      throws IOException {
    writeBlock(doc, module, "`" + module + "`", section(module, options));
  }

  /** Rewrites block {@code name} of {@code doc}, adding it under {@code heading} when missing. */
  private static void writeBlock(Path doc, String name, String heading, String body)
      throws IOException {
    String text = Files.readString(doc);
    String section = begin(name) + body + end(name);
    int from = text.indexOf(begin(name));
    int to = text.indexOf(end(name));
    if (from < 0 || to < from) {
      text = text.stripTrailing() + "\n\n## " + heading + "\n\n" + section + "\n";
    } else {
      text = text.substring(0, from) + section + text.substring(to + end(name).length());
    }
    Files.writeString(doc, text);
  }

  /**
   * Checks that the section of {@code module} in {@code doc} is what the module's options on the
   * class path render to; with the system property {@code weir.docs.write=true}, rewrites it first.
   * For each module's tests.
   *
   * @throws IllegalStateException naming the module and how to regenerate the section
   */
  public static void check(Path doc, String module) throws IOException {
    List<ConfigOption<?>> options = KnownKeys.byModule().get(module);
    if (options == null) {
      throw new IllegalStateException("No options of " + module + " on the class path");
    }
    checkBlock(doc, module, "`" + module + "`", section(module, options), "the keys of " + module);
  }

  /** The name of the block of Flink keys Weir accepts without acting on them. */
  private static final String FLINK_KEYS = "flink-keys-not-acted-on";

  /**
   * Checks (with {@code weir.docs.write=true}: rewrites first) the table of Flink keys Weir accepts
   * without acting on them ({@link FlinkKeys}) in {@code doc}. For weir-api's tests.
   */
  public static void checkFlinkKeys(Path doc) throws IOException {
    checkBlock(
        doc,
        FLINK_KEYS,
        "Flink keys Weir accepts without acting on them",
        "\n" + FlinkKeys.table() + "\n",
        "Flink's keys that Weir accepts without acting on them");
  }

  private static void checkBlock(Path doc, String name, String heading, String body, String what)
      throws IOException {
    if (Boolean.getBoolean("weir.docs.write")) {
      writeBlock(doc, name, heading, body);
    }
    String actual = current(doc, name);
    if (!body.equals(actual)) {
      throw new IllegalStateException(
          doc
              + " does not list "
              + what
              + " as they are declared: run the tests of the module that declares them with"
              + " -Dweir.docs.write=true to rewrite its section. Expected:\n"
              + body
              + "\nbut found:\n"
              + actual);
    }
  }
}

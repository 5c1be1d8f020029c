package io.weir.cli.migrate;

import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.Reader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.TreeMap;

/**
 * What {@code weir migrate} knows about Flink's API: the Weir class of each Flink class, the Flink
 * classes and packages without one, the static calls Weir names differently and the calls it does
 * not have. Read from {@code flink-to-weir.properties} beside this class, the one file that
 * docs/migrating-from-flink.md and the staleness test read too. Immutable; any thread.
 */
public final class FlinkToWeirMap {

  /** The resource the map is read from. */
  public static final String RESOURCE = "flink-to-weir.properties";

  /** The package every key of a Flink class starts with. */
  public static final String FLINK_PREFIX = "org.apache.flink.";

  private static final String CALL = "call.";
  private static final String MISSING = "missing.";
  private static final String DROP = "drop.";

  /** What the map says of one Flink class: its Weir class, or why it has none. */
  public sealed interface Target {
    /** The Flink class has a Weir counterpart: {@code weirClass}, fully qualified. */
    record Mapped(String weirClass) implements Target {
      public String simpleName() {
        return weirClass.substring(weirClass.lastIndexOf('.') + 1);
      }

      public String packageName() {
        return weirClass.substring(0, weirClass.lastIndexOf('.'));
      }
    }

    /** The Flink class has none; {@code advice} says what to do instead. */
    record Untranslatable(String advice) implements Target {}
  }

  private final Map<String, String> classes;
  private final Map<String, String> untranslatable;
  private final Map<String, String> staticCalls;
  private final Map<String, String> missingCalls;
  private final Map<String, String> droppedCalls;

  private FlinkToWeirMap(Properties properties) {
    Map<String, String> classes = new TreeMap<>();
    Map<String, String> untranslatable = new TreeMap<>();
    Map<String, String> staticCalls = new TreeMap<>();
    Map<String, String> missingCalls = new TreeMap<>();
    Map<String, String> droppedCalls = new TreeMap<>();
    for (String key : properties.stringPropertyNames()) {
      String value = properties.getProperty(key).strip();
      if (key.startsWith(CALL)) {
        staticCalls.put(key.substring(CALL.length()), value);
      } else if (key.startsWith(MISSING)) {
        missingCalls.put(key.substring(MISSING.length()), value);
      } else if (key.startsWith(DROP)) {
        droppedCalls.put(key.substring(DROP.length()), value);
      } else if (!key.startsWith(FLINK_PREFIX)) {
        throw new IllegalStateException(RESOURCE + ": a key of an unknown kind: " + key);
      } else if (value.startsWith("!")) {
        untranslatable.put(key, value.substring(1).strip());
      } else {
        classes.put(key, value);
      }
    }
    this.classes = Map.copyOf(classes);
    this.untranslatable = Map.copyOf(untranslatable);
    this.staticCalls = Map.copyOf(staticCalls);
    this.missingCalls = Map.copyOf(missingCalls);
    this.droppedCalls = Map.copyOf(droppedCalls);
  }

  /** The map of this version of Weir. */
  public static FlinkToWeirMap load() {
    try (InputStream in = FlinkToWeirMap.class.getResourceAsStream(RESOURCE)) {
      if (in == null) {
        throw new IllegalStateException(RESOURCE + " is missing from the class path");
      }
      Properties properties = new Properties();
      try (Reader reader = new InputStreamReader(in, StandardCharsets.UTF_8)) {
        properties.load(reader);
      }
      return new FlinkToWeirMap(properties);
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot read " + RESOURCE, e);
    }
  }

  /** Flink class to Weir class, both fully qualified. */
  public Map<String, String> classes() {
    return classes;
  }

  /** Flink class, or package ending in '.', to what to do instead. */
  public Map<String, String> untranslatable() {
    return untranslatable;
  }

  /** {@code FlinkSimpleName.method} to the Weir method's name, or to "!advice" for none. */
  public Map<String, String> staticCalls() {
    return staticCalls;
  }

  /** Name of a Flink instance method that Weir does not have, to what to do instead. */
  public Map<String, String> missingCalls() {
    return missingCalls;
  }

  /** Name of a Flink instance method that means nothing on Weir, to why. */
  public Map<String, String> droppedCalls() {
    return droppedCalls;
  }

  /**
   * What the map says of {@code flinkClass} (fully qualified, perhaps a nested class as {@code
   * Outer.Inner}), or empty when it is not Flink's. A nested class follows its outer class: it maps
   * to the same nested name under the Weir class.
   */
  public Optional<Target> lookup(String flinkClass) {
    if (!flinkClass.startsWith(FLINK_PREFIX)) {
      return Optional.empty();
    }
    // The longest mapped class that is flinkClass or encloses it.
    for (String name = flinkClass; name.startsWith(FLINK_PREFIX); ) {
      String weir = classes.get(name);
      if (weir != null) {
        return Optional.of(new Target.Mapped(weir + flinkClass.substring(name.length())));
      }
      String advice = untranslatable.get(name);
      if (advice != null) {
        return Optional.of(new Target.Untranslatable(advice));
      }
      int dot = name.lastIndexOf('.');
      if (dot < 0) {
        break;
      }
      name = name.substring(0, dot);
    }
    return Optional.of(new Target.Untranslatable(packageAdvice(flinkClass)));
  }

  /** The advice of the longest package key that {@code name} starts with. */
  private String packageAdvice(String name) {
    String best = null;
    for (String key : untranslatable.keySet()) {
      if (key.endsWith(".")
          && name.startsWith(key)
          && (best == null || key.length() > best.length())) {
        best = key;
      }
    }
    return best == null ? "no Weir counterpart is known" : untranslatable.get(best);
  }

  /** The Flink classes of {@code flinkPackage} the map knows (mapped or not), by simple name. */
  public Map<String, String> classesOfPackage(String flinkPackage) {
    Map<String, String> result = new TreeMap<>();
    for (String key : classes.keySet()) {
      if (key.lastIndexOf('.') == flinkPackage.length() && key.startsWith(flinkPackage + ".")) {
        result.put(key.substring(flinkPackage.length() + 1), key);
      }
    }
    for (String key : untranslatable.keySet()) {
      if (!key.endsWith(".")
          && key.lastIndexOf('.') == flinkPackage.length()
          && key.startsWith(flinkPackage + ".")) {
        result.put(key.substring(flinkPackage.length() + 1), key);
      }
    }
    return result;
  }

  /**
   * The map as the Markdown tables of docs/migrating-from-flink.md: the classes by Flink package,
   * then what has no counterpart, then the calls.
   */
  public String markdown() {
    StringBuilder out = new StringBuilder();
    out.append("| Flink | Weir |\n| --- | --- |\n");
    new TreeMap<>(classes)
        .forEach(
            (flink, weir) ->
                out.append("| `").append(flink).append("` | `").append(weir).append("` |\n"));
    out.append(
        "\n| Flink class or package | without a Weir counterpart: what to do |\n| --- | --- |\n");
    new TreeMap<>(untranslatable)
        .forEach(
            (flink, advice) ->
                out.append("| `")
                    .append(flink.endsWith(".") ? flink + "*" : flink)
                    .append("` | ")
                    .append(advice)
                    .append(" |\n"));
    out.append("\n| Flink call | on Weir |\n| --- | --- |\n");
    new TreeMap<>(staticCalls)
        .forEach(
            (call, weir) ->
                out.append("| `")
                    .append(call)
                    .append("(...)` | ")
                    .append(
                        weir.startsWith("!")
                            ? weir.substring(1).strip()
                            : "`"
                                + call.substring(0, call.indexOf('.'))
                                + "` becomes its Weir class; the call is `"
                                + weir
                                + "(...)`")
                    .append(" |\n"));
    new TreeMap<>(missingCalls)
        .forEach(
            (call, advice) ->
                out.append("| `.")
                    .append(call)
                    .append("(...)` | not in Weir (listed by the tool): ")
                    .append(advice)
                    .append(" |\n"));
    new TreeMap<>(droppedCalls)
        .forEach(
            (call, why) ->
                out.append("| `.")
                    .append(call)
                    .append("()` | removed by the tool: ")
                    .append(why)
                    .append(" |\n"));
    return out.toString();
  }
}

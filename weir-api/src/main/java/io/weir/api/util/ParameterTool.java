package io.weir.api.util;

import io.weir.api.ExecutionConfig;
import java.io.File;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Properties;

/**
 * A job's command-line parameters, {@code --key value} or {@code -key value}, read as Flink's
 * {@code ParameterTool} reads them ({@code org.apache.flink.util.ParameterTool}, formerly in {@code
 * org.apache.flink.api.java.utils}):
 *
 * <pre>{@code
 * ParameterTool params = ParameterTool.fromArgs(args);
 * String input = params.getRequired("input");
 * int parallelism = params.getInt("parallelism", 2);
 * boolean verbose = params.has("verbose");   // a key without a value
 * }</pre>
 *
 * <p>A key followed by another key (or by nothing) has no value: {@link #has} is true for it and
 * {@link #get} returns null. A value may start with {@code -} when it is a number ({@code --offset
 * -5}). When a key is given twice the last value counts. Immutable and serializable, so a function
 * may keep it as a field.
 */
public final class ParameterTool extends ExecutionConfig.GlobalJobParameters {
  private static final long serialVersionUID = 1L;

  /** What a key given without a value maps to, as in Flink. */
  static final String NO_VALUE_KEY = "__NO_VALUE_KEY";

  private final Map<String, String> data;

  private ParameterTool(Map<String, String> data) {
    this.data = Collections.unmodifiableMap(new LinkedHashMap<>(data));
  }

  /**
   * Parses {@code --key value} pairs and {@code --flag}s.
   *
   * @throws IllegalArgumentException naming the argument that is neither a key nor a key's value
   */
  public static ParameterTool fromArgs(String[] args) {
    Objects.requireNonNull(args, "args");
    Map<String, String> map = new LinkedHashMap<>();
    int i = 0;
    while (i < args.length) {
      String key = key(args, i);
      i++;
      if (i < args.length && !isKey(args[i])) {
        map.put(key, args[i]);
        i++;
      } else {
        map.put(key, NO_VALUE_KEY);
      }
    }
    return new ParameterTool(map);
  }

  /** The parameters of a map, e.g. for tests. */
  public static ParameterTool fromMap(Map<String, String> map) {
    Objects.requireNonNull(map, "map");
    return new ParameterTool(map);
  }

  /**
   * The keys and values of a Java properties file, as Flink's {@code fromPropertiesFile}.
   *
   * @throws FileNotFoundException naming the file when it does not exist
   * @throws IOException when it cannot be read
   */
  public static ParameterTool fromPropertiesFile(String path) throws IOException {
    return fromPropertiesFile(new File(Objects.requireNonNull(path, "path")));
  }

  /** As {@link #fromPropertiesFile(String)}. */
  public static ParameterTool fromPropertiesFile(File file) throws IOException {
    if (!file.isFile()) {
      throw new FileNotFoundException(
          "Properties file "
              + file.getAbsolutePath()
              + (file.exists() ? " is not a file" : " does not exist")
              + ": give the path of a file of key=value lines");
    }
    try (InputStream in = Files.newInputStream(file.toPath())) {
      return fromPropertiesFile(in);
    }
  }

  /** The keys and values of a Java properties stream; the stream is read, not closed. */
  public static ParameterTool fromPropertiesFile(InputStream in) throws IOException {
    Properties properties = new Properties();
    properties.load(Objects.requireNonNull(in, "in"));
    return fromProperties(properties);
  }

  /** The JVM's system properties ({@code -Dkey=value}), as Flink's {@code fromSystemProperties}. */
  public static ParameterTool fromSystemProperties() {
    return fromProperties(System.getProperties());
  }

  private static ParameterTool fromProperties(Properties properties) {
    Map<String, String> map = new LinkedHashMap<>();
    for (String name : properties.stringPropertyNames()) {
      map.put(name, properties.getProperty(name));
    }
    return new ParameterTool(map);
  }

  /**
   * These parameters and {@code other}'s; where both have a key, {@code other}'s value counts, as
   * in Flink ({@code ParameterTool.fromPropertiesFile(f).mergeWith(ParameterTool.fromArgs(args))}
   * lets the command line override the file).
   */
  public ParameterTool mergeWith(ParameterTool other) {
    Map<String, String> merged = new LinkedHashMap<>(data);
    merged.putAll(other.data);
    return new ParameterTool(merged);
  }

  private static String key(String[] args, int i) {
    String arg = args[i];
    String key =
        arg.startsWith("--") ? arg.substring(2) : arg.startsWith("-") ? arg.substring(1) : null;
    if (key == null || key.isEmpty()) {
      throw new IllegalArgumentException(
          "Error parsing arguments '"
              + String.join(" ", args)
              + "' on '"
              + arg
              + "': "
              + (key == null
                  ? "a key must start with -- or - (e.g. --input FILE)"
                  : "a key must have a name after the dashes"));
    }
    return key;
  }

  /** A key, not a key's value: it starts with a dash and is not a negative number. */
  private static boolean isKey(String arg) {
    if (!arg.startsWith("-") || arg.length() < 2) {
      return false;
    }
    try {
      Double.parseDouble(arg);
      return false;
    } catch (NumberFormatException e) {
      return true;
    }
  }

  /** Number of keys given. */
  public int getNumberOfParameters() {
    return data.size();
  }

  /** True if {@code key} was given, with or without a value. */
  public boolean has(String key) {
    return data.containsKey(key);
  }

  /** The value of {@code key}; null when it was not given or given without a value. */
  public String get(String key) {
    String value = data.get(key);
    return NO_VALUE_KEY.equals(value) ? null : value;
  }

  /** The value of {@code key}, or {@code defaultValue} when there is none. */
  public String get(String key, String defaultValue) {
    String value = get(key);
    return value == null ? defaultValue : value;
  }

  /**
   * The value of {@code key}.
   *
   * @throws IllegalArgumentException naming the key when it was not given or has no value
   */
  public String getRequired(String key) {
    String value = get(key);
    if (value == null) {
      throw new IllegalArgumentException(
          has(key)
              ? "The parameter --" + key + " needs a value: give --" + key + " VALUE"
              : "No data for required key '" + key + "': give --" + key + " VALUE");
    }
    return value;
  }

  /** The value of {@code key} as an int; required. */
  public int getInt(String key) {
    return parse(key, getRequired(key), "an int", Integer::parseInt);
  }

  /** The value of {@code key} as an int, or {@code defaultValue} when there is none. */
  public int getInt(String key, int defaultValue) {
    String value = get(key);
    return value == null ? defaultValue : parse(key, value, "an int", Integer::parseInt);
  }

  /** The value of {@code key} as a long; required. */
  public long getLong(String key) {
    return parse(key, getRequired(key), "a long", Long::parseLong);
  }

  /** The value of {@code key} as a long, or {@code defaultValue} when there is none. */
  public long getLong(String key, long defaultValue) {
    String value = get(key);
    return value == null ? defaultValue : parse(key, value, "a long", Long::parseLong);
  }

  /** The value of {@code key} as a double; required. */
  public double getDouble(String key) {
    return parse(key, getRequired(key), "a number", Double::parseDouble);
  }

  /** The value of {@code key} as a double, or {@code defaultValue} when there is none. */
  public double getDouble(String key, double defaultValue) {
    String value = get(key);
    return value == null ? defaultValue : parse(key, value, "a number", Double::parseDouble);
  }

  /**
   * The value of {@code key} as a boolean ({@code true} or {@code false}, any case); a key given
   * without a value is true, as Flink reads {@code --verbose}; required.
   */
  public boolean getBoolean(String key) {
    if (has(key) && get(key) == null) {
      return true;
    }
    return parseBoolean(key, getRequired(key));
  }

  /** As {@link #getBoolean(String)}, or {@code defaultValue} when the key was not given. */
  public boolean getBoolean(String key, boolean defaultValue) {
    return has(key) ? getBoolean(key) : defaultValue;
  }

  private static boolean parseBoolean(String key, String value) {
    if (value.equalsIgnoreCase("true")) {
      return true;
    }
    if (value.equalsIgnoreCase("false")) {
      return false;
    }
    throw new IllegalArgumentException(
        "The value '" + value + "' of --" + key + " is not a boolean: give true or false");
  }

  /** The value of {@code key} as a float; required. */
  public float getFloat(String key) {
    return parse(key, getRequired(key), "a number", Float::parseFloat);
  }

  /** The value of {@code key} as a float, or {@code defaultValue} when there is none. */
  public float getFloat(String key, float defaultValue) {
    String value = get(key);
    return value == null ? defaultValue : parse(key, value, "a number", Float::parseFloat);
  }

  /** The keys and values as {@link Properties}, as Flink's {@code getProperties}. */
  public Properties getProperties() {
    Properties properties = new Properties();
    properties.putAll(data);
    return properties;
  }

  /** The keys and values; a key given without a value maps to Flink's {@code __NO_VALUE_KEY}. */
  @Override
  public Map<String, String> toMap() {
    return data;
  }

  private interface Parser<T> {
    T parse(String value);
  }

  private static <T> T parse(String key, String value, String what, Parser<T> parser) {
    try {
      return parser.parse(value.strip());
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(
          "The value '" + value + "' of --" + key + " is not " + what + ": give --" + key + " N",
          e);
    }
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof ParameterTool other && data.equals(other.data);
  }

  @Override
  public int hashCode() {
    return data.hashCode();
  }

  @Override
  public String toString() {
    return "ParameterTool" + data;
  }
}

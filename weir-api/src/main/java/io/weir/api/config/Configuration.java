package io.weir.api.config;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.TreeMap;

/**
 * Key-value settings, read through typed {@link ConfigOption}s. Values are kept as text, the form
 * in which they arrive from files and {@code -Dkey=value}, and parsed on read, so an invalid value
 * is reported with its key. Not thread-safe; the runtime reads a copy.
 */
public final class Configuration {

  private final Map<String, String> values = new TreeMap<>();

  public Configuration() {}

  public Configuration(Configuration other) {
    values.putAll(other.values);
  }

  /** Settings from a Flink-style YAML file: flat {@code key: value} lines, or nested maps. */
  public static Configuration fromYaml(Path file) throws IOException {
    return YamlLite.parse(Files.readAllLines(file), file.toString());
  }

  /** The {@code weir.*}-free system properties that look like configuration keys. */
  public static Configuration fromSystemProperties() {
    Configuration c = new Configuration();
    Properties p = System.getProperties();
    for (String name : KnownKeys.configurationKeys(p.stringPropertyNames())) {
      c.setString(name, p.getProperty(name));
    }
    return c;
  }

  public <T> T get(ConfigOption<T> option) {
    return getOptional(option).orElse(option.defaultValue());
  }

  public <T> Optional<T> getOptional(ConfigOption<T> option) {
    String raw = values.get(option.key());
    if (raw == null) {
      for (String old : option.deprecatedKeys()) {
        raw = values.get(old);
        if (raw != null) {
          break;
        }
      }
    }
    return raw == null ? Optional.empty() : Optional.of(option.parse(raw));
  }

  public boolean contains(ConfigOption<?> option) {
    if (values.containsKey(option.key())) {
      return true;
    }
    for (String old : option.deprecatedKeys()) {
      if (values.containsKey(old)) {
        return true;
      }
    }
    return false;
  }

  public <T> Configuration set(ConfigOption<T> option, T value) {
    values.put(option.key(), format(value));
    return this;
  }

  public Configuration setString(String key, String value) {
    values.put(key, value);
    return this;
  }

  public String getString(String key, String defaultValue) {
    return values.getOrDefault(key, defaultValue);
  }

  public Configuration remove(ConfigOption<?> option) {
    values.remove(option.key());
    return this;
  }

  /** Adds every setting of {@code other}, overriding equal keys. */
  public Configuration addAll(Configuration other) {
    values.putAll(other.values);
    return this;
  }

  public Map<String, String> toMap() {
    return Collections.unmodifiableMap(values);
  }

  private static String format(Object value) {
    if (value instanceof java.time.Duration d) {
      return TimeUtils.format(d);
    }
    if (value instanceof Map<?, ?> map) {
      return ConfigMaps.format(map);
    }
    if (value instanceof List<?> list) {
      return String.join(";", list.stream().map(String::valueOf).toList());
    }
    return String.valueOf(value);
  }

  @Override
  public String toString() {
    return values.toString();
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof Configuration c && c.values.equals(values);
  }

  @Override
  public int hashCode() {
    return values.hashCode();
  }
}

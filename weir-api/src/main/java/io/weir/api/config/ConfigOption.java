package io.weir.api.config;

import java.util.List;
import java.util.Objects;
import java.util.function.Function;

/**
 * A typed configuration key with its default. Keys and defaults follow Flink 2.x, so a Flink
 * configuration file means the same thing to Weir.
 *
 * @param key the key, e.g. {@code execution.buffer-timeout.interval}
 * @param defaultValue the value when the key is unset; null for "unset"
 * @param parser turns the textual value into the typed one; throws IllegalArgumentException
 * @param description one line for the documentation
 * @param deprecatedKeys older keys read when the key itself is unset
 */
public record ConfigOption<T>(
    String key,
    T defaultValue,
    Function<String, T> parser,
    String description,
    List<String> deprecatedKeys) {

  public ConfigOption {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(parser, "parser");
    deprecatedKeys = List.copyOf(deprecatedKeys);
  }

  public boolean hasDefaultValue() {
    return defaultValue != null;
  }

  /** The same option, also read from {@code keys} when unset. */
  public ConfigOption<T> withDeprecatedKeys(String... keys) {
    return new ConfigOption<>(key, defaultValue, parser, description, List.of(keys));
  }

  public ConfigOption<T> withDescription(String text) {
    return new ConfigOption<>(key, defaultValue, parser, text, deprecatedKeys);
  }

  /** Parses a textual value, naming this key in the error. */
  public T parse(String text) {
    try {
      return parser.apply(text.trim());
    } catch (RuntimeException e) {
      throw new IllegalArgumentException(
          "Invalid value '" + text + "' for configuration key '" + key + "': " + e.getMessage(), e);
    }
  }
}

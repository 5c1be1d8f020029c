package io.weir.api.config;

import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Function;

/** Builds {@link ConfigOption}s: {@code ConfigOptions.key("a.b").intType().defaultValue(1)}. */
public final class ConfigOptions {

  private ConfigOptions() {}

  public static Builder key(String key) {
    return new Builder(key);
  }

  /** First step: the key. */
  public static final class Builder {
    private final String key;

    Builder(String key) {
      this.key = key;
    }

    public Typed<Integer> intType() {
      return new Typed<>(key, Integer::parseInt);
    }

    public Typed<Long> longType() {
      return new Typed<>(key, Long::parseLong);
    }

    public Typed<Boolean> booleanType() {
      return new Typed<>(key, ConfigOptions::parseBoolean);
    }

    public Typed<String> stringType() {
      return new Typed<>(key, s -> s);
    }

    public Typed<Double> doubleType() {
      return new Typed<>(key, Double::valueOf);
    }

    public Typed<Duration> durationType() {
      return new Typed<>(key, TimeUtils::parseDuration);
    }

    public Typed<MemorySize> memoryType() {
      return new Typed<>(key, MemorySize::parse);
    }

    /**
     * A map of strings, written as Flink writes one: {@code key1:value1,key2:value2}, a key or
     * value holding {@code ,} or {@code :} in single quotes.
     */
    public Typed<Map<String, String>> mapType() {
      return new Typed<>(key, ConfigMaps::parse);
    }

    public <E extends Enum<E>> Typed<E> enumType(Class<E> type) {
      return new Typed<>(key, s -> parseEnum(type, s));
    }
  }

  /** Second step: the default. */
  public static final class Typed<T> {
    private final String key;
    private final Function<String, T> parser;

    Typed(String key, Function<String, T> parser) {
      this.key = key;
      this.parser = parser;
    }

    public ConfigOption<T> defaultValue(T value) {
      return new ConfigOption<>(key, value, parser, "", List.of());
    }

    public ConfigOption<T> noDefaultValue() {
      return new ConfigOption<>(key, null, parser, "", List.of());
    }
  }

  static boolean parseBoolean(String s) {
    return switch (s.toLowerCase(Locale.ROOT)) {
      case "true" -> true;
      case "false" -> false;
      default -> throw new IllegalArgumentException("expected true or false");
    };
  }

  static <E extends Enum<E>> E parseEnum(Class<E> type, String s) {
    String normalized = s.trim().toUpperCase(Locale.ROOT).replace('-', '_');
    for (E constant : type.getEnumConstants()) {
      if (constant.name().equals(normalized)) {
        return constant;
      }
    }
    StringBuilder allowed = new StringBuilder();
    for (E constant : type.getEnumConstants()) {
      allowed.append(allowed.length() == 0 ? "" : ", ").append(constant.name());
    }
    throw new IllegalArgumentException("expected one of " + allowed);
  }
}

package io.weir.cli;

import io.weir.cluster.ClusterOptions;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** {@code -D key=value} options of the cluster commands. */
final class Settings {

  private Settings() {}

  /**
   * The settings of a Flink-style YAML file (flat {@code key: value} lines or nested maps); none
   * when {@code file} is null.
   *
   * @throws IllegalArgumentException naming the file and what in it cannot be read
   */
  static Map<String, String> fromFile(Path file) {
    if (file == null) {
      return Map.of();
    }
    try {
      return io.weir.api.config.Configuration.fromYaml(file).toMap();
    } catch (java.io.IOException e) {
      throw new IllegalArgumentException(
          "Cannot read the config file " + file + ": " + e.getMessage(), e);
    }
  }

  static Map<String, String> parse(List<String> settings) {
    Map<String, String> map = new LinkedHashMap<>();
    if (settings != null) {
      for (String s : settings) {
        Map.Entry<String, String> e = ClusterOptions.parseSetting(s);
        map.put(e.getKey(), e.getValue());
      }
    }
    return map;
  }
}

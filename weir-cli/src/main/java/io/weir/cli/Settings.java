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
   * The settings of a config file of {@code key: value} lines, as the cluster processes read it;
   * none when {@code file} is null.
   *
   * @throws IllegalArgumentException naming the file or the line that cannot be read
   */
  static Map<String, String> fromFile(Path file) {
    return file == null ? Map.of() : ClusterOptions.load(file, Map.of()).asMap();
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

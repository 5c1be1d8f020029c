package io.weir.cli;

import io.weir.cluster.ClusterOptions;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** {@code -D key=value} options of the cluster commands. */
final class Settings {

  private Settings() {}

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

package io.weir.cluster.rest.handlers;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;

/** The answer of Flink's metric endpoints to {@code ?get=}: names, or the values asked for. */
final class MetricQuery {

  private MetricQuery() {}

  /**
   * Without {@code asked}, the names of {@code metrics} ({@code [{"id"}]}); else the values of
   * those asked ({@code [{"id", "value"}]}), each once, leaving out, as Flink does, a name there is
   * no value of.
   */
  static List<Map<String, String>> namesOrValues(Map<String, String> metrics, List<String> asked) {
    List<Map<String, String>> answer = new ArrayList<>();
    if (asked.isEmpty()) {
      metrics.keySet().forEach(name -> answer.add(Map.of("id", name)));
      return answer;
    }
    for (String name : new LinkedHashSet<>(asked)) {
      String value = metrics.get(name);
      if (value != null) {
        answer.add(Map.of("id", name, "value", value));
      }
    }
    return answer;
  }
}

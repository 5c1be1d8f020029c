package io.weir.cluster.rest.handlers;

import io.netty.handler.codec.http.HttpResponseStatus;
import io.weir.cluster.jobmanager.Dispatcher;
import io.weir.cluster.rest.RestException;
import io.weir.cluster.rest.RestRequest;
import io.weir.runtime.graph.JobVertex;
import io.weir.runtime.jobmaster.SubtaskStatus;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.IntPredicate;

/**
 * A vertex's metrics as Flink's REST API serves them, sampled from the TaskManagers at each call:
 *
 * <ul>
 *   <li>{@code GET /jobs/:jobid/vertices/:vertexid/metrics}: each subtask's, as {@code
 *       <subtask>.<name>};
 *   <li>{@code GET /jobs/:jobid/vertices/:vertexid/subtasks/metrics}: aggregated over the subtasks
 *       ({@code min}, {@code max}, {@code avg}, {@code sum}, {@code skew});
 *   <li>{@code GET /jobs/:jobid/vertices/:vertexid/subtasks/:subtaskindex/metrics}: one subtask's.
 * </ul>
 *
 * <p>Without {@code ?get=} each answers the names it has ({@code [{"id"}]}); with {@code ?get=a,b}
 * their values ({@code [{"id", "value"}]}, values as text), leaving out, as Flink does, a name no
 * subtask has now. A subtask's metrics are Flink's task metrics ({@link #TASK_METRICS}) and its
 * functions' own ({@code <operator>.<group>.<name>}, see {@link
 * io.weir.runtime.metrics.MetricDump}); a subtask whose TaskManager did not answer has none.
 */
final class VertexMetricsHandlers {

  /** The task metrics every running subtask has, by Flink's names. */
  static final List<String> TASK_METRICS =
      List.of(
          "numRecordsIn",
          "numRecordsOut",
          "numBytesIn",
          "numBytesOut",
          "numRecordsInPerSecond",
          "numRecordsOutPerSecond",
          "numBytesInPerSecond",
          "numBytesOutPerSecond",
          "idleTimeMsPerSecond",
          "backPressuredTimeMsPerSecond",
          "busyTimeMsPerSecond",
          "accumulatedIdleTimeMs",
          "accumulatedBackpressuredTimeMs",
          "accumulatedBusyTimeMs",
          "currentInputWatermark");

  /** Flink's aggregations, in Flink's order. */
  private static final List<String> AGGREGATIONS = List.of("min", "max", "avg", "sum", "skew");

  private VertexMetricsHandlers() {}

  /** {@code GET /jobs/:jobid/vertices/:vertexid/metrics}. */
  static final class Vertex extends DispatcherGet {
    Vertex(Dispatcher dispatcher) {
      super(dispatcher, "/jobs/:jobid/vertices/:vertexid/metrics");
    }

    @Override
    public List<Map<String, String>> handle(RestRequest request) {
      Map<String, String> all = new TreeMap<>();
      for (SubtaskStatus s : subtasks(dispatcher, request)) {
        metricsOf(s).forEach((name, value) -> all.put(s.subtask() + "." + name, value));
      }
      return MetricQuery.namesOrValues(all, request.queryParameter("get"));
    }
  }

  /** {@code GET /jobs/:jobid/vertices/:vertexid/subtasks/:subtaskindex/metrics}. */
  static final class Subtask extends DispatcherGet {
    Subtask(Dispatcher dispatcher) {
      super(dispatcher, "/jobs/:jobid/vertices/:vertexid/subtasks/:subtaskindex/metrics");
    }

    @Override
    public List<Map<String, String>> handle(RestRequest request) {
      Dispatcher.Job job = JobLookup.find(dispatcher, request.pathParameter("jobid"));
      JobVertex vertex = VertexHandlers.vertex(job, request.pathParameter("vertexid"));
      String raw = request.pathParameter("subtaskindex");
      if (!raw.matches("\\d{1,9}") || Integer.parseInt(raw) >= vertex.getParallelism()) {
        throw new RestException(
            HttpResponseStatus.NOT_FOUND,
            "Vertex "
                + vertex.getIndex()
                + " ('"
                + vertex.getName()
                + "') of job "
                + job.id()
                + " has no subtask '"
                + raw
                + "': its subtasks are 0 to "
                + (vertex.getParallelism() - 1));
      }
      int index = Integer.parseInt(raw);
      Map<String, String> metrics = new TreeMap<>();
      for (SubtaskStatus s : ofVertex(job, vertex)) {
        if (s.subtask() == index) {
          metrics.putAll(metricsOf(s));
        }
      }
      return MetricQuery.namesOrValues(metrics, request.queryParameter("get"));
    }
  }

  /**
   * {@code GET /jobs/:jobid/vertices/:vertexid/subtasks/metrics}: with {@code ?get=}, each metric
   * aggregated over the subtasks that have it with a numeric value ({@code [{"id", "min", "max",
   * "avg", "sum", "skew"}]}, or those {@code ?agg=} names), of every subtask or those {@code
   * ?subtasks=} names ({@code 0,2-4}).
   */
  static final class Aggregated extends DispatcherGet {
    Aggregated(Dispatcher dispatcher) {
      super(dispatcher, "/jobs/:jobid/vertices/:vertexid/subtasks/metrics");
    }

    @Override
    public List<Map<String, Object>> handle(RestRequest request) {
      List<String> aggregations = aggregations(request.queryParameter("agg"));
      IntPredicate chosen = subtaskFilter(request.queryParameter("subtasks"));
      List<Map<String, String>> metrics = new ArrayList<>();
      for (SubtaskStatus s : subtasks(dispatcher, request)) {
        if (chosen.test(s.subtask())) {
          metrics.add(metricsOf(s));
        }
      }
      List<String> asked = request.queryParameter("get");
      List<Map<String, Object>> answer = new ArrayList<>();
      if (asked.isEmpty()) {
        Set<String> names = new TreeSet<>();
        metrics.forEach(m -> names.addAll(m.keySet()));
        names.forEach(name -> answer.add(Map.of("id", name)));
        return answer;
      }
      for (String name : new LinkedHashSet<>(asked)) {
        List<Double> values = new ArrayList<>();
        for (Map<String, String> m : metrics) {
          Double value = number(m.get(name));
          if (value != null) {
            values.add(value);
          }
        }
        if (!values.isEmpty()) {
          answer.add(aggregate(name, values, aggregations));
        }
      }
      return answer;
    }
  }

  /** {@code id} and each of {@code aggregations} of {@code values} (not empty). */
  static Map<String, Object> aggregate(String id, List<Double> values, List<String> aggregations) {
    double min = Double.POSITIVE_INFINITY;
    double max = Double.NEGATIVE_INFINITY;
    double sum = 0;
    for (double v : values) {
      min = Math.min(min, v);
      max = Math.max(max, v);
      sum += v;
    }
    double avg = sum / values.size();
    Map<String, Object> entry = new LinkedHashMap<>();
    entry.put("id", id);
    for (String aggregation : aggregations) {
      entry.put(
          aggregation,
          switch (aggregation) {
            case "min" -> min;
            case "max" -> max;
            case "avg" -> avg;
            case "sum" -> sum;
            default -> skew(values, avg);
          });
    }
    return entry;
  }

  /**
   * Flink's data skew of {@code values}, 0 to 100: their mean absolute deviation as a percentage of
   * their mean {@code avg} (0 when the mean is 0), at most 100.
   */
  static double skew(List<Double> values, double avg) {
    if (avg == 0) {
      return 0;
    }
    double deviation = 0;
    for (double v : values) {
      deviation += Math.abs(v - avg);
    }
    return Math.min(deviation / values.size() / avg * 100, 100);
  }

  /** A subtask's metrics by Flink's names: its task metrics and its functions'. */
  static Map<String, String> metricsOf(SubtaskStatus s) {
    SubtaskStatus.Io io = s.io();
    Map<String, String> metrics = new TreeMap<>();
    if (io == null) {
      return metrics;
    }
    metrics.put("numRecordsIn", String.valueOf(io.recordsIn()));
    metrics.put("numRecordsOut", String.valueOf(io.recordsOut()));
    metrics.put("numBytesIn", String.valueOf(io.bytesIn()));
    metrics.put("numBytesOut", String.valueOf(io.bytesOut()));
    putKnown(metrics, "numRecordsInPerSecond", io.recordsInPerSecond());
    putKnown(metrics, "numRecordsOutPerSecond", io.recordsOutPerSecond());
    putKnown(metrics, "numBytesInPerSecond", io.bytesInPerSecond());
    putKnown(metrics, "numBytesOutPerSecond", io.bytesOutPerSecond());
    putKnown(metrics, "idleTimeMsPerSecond", io.idleRatio() * 1000);
    putKnown(metrics, "backPressuredTimeMsPerSecond", io.backPressuredRatio() * 1000);
    putKnown(metrics, "busyTimeMsPerSecond", io.busyRatio() * 1000);
    metrics.put("accumulatedIdleTimeMs", String.valueOf(io.idleMillis()));
    metrics.put("accumulatedBackpressuredTimeMs", String.valueOf(io.backPressuredMillis()));
    metrics.put("accumulatedBusyTimeMs", String.valueOf(io.busyMillis()));
    metrics.put("currentInputWatermark", String.valueOf(io.inputWatermark()));
    metrics.putAll(io.operatorMetrics());
    return metrics;
  }

  private static void putKnown(Map<String, String> metrics, String name, double value) {
    if (!Double.isNaN(value)) {
      metrics.put(name, String.valueOf(value));
    }
  }

  private static List<SubtaskStatus> subtasks(Dispatcher dispatcher, RestRequest request) {
    Dispatcher.Job job = JobLookup.find(dispatcher, request.pathParameter("jobid"));
    return ofVertex(job, VertexHandlers.vertex(job, request.pathParameter("vertexid")));
  }

  private static List<SubtaskStatus> ofVertex(Dispatcher.Job job, JobVertex vertex) {
    return VertexHandlers.subtasks(job).stream()
        .filter(s -> s.vertex() == vertex.getIndex())
        .toList();
  }

  /** The aggregations {@code ?agg=} asks for, all by default. */
  static List<String> aggregations(List<String> asked) {
    if (asked.isEmpty()) {
      return AGGREGATIONS;
    }
    List<String> chosen = new ArrayList<>();
    for (String a : asked) {
      if (!AGGREGATIONS.contains(a)) {
        throw new RestException(
            HttpResponseStatus.BAD_REQUEST,
            "Query parameter 'agg' has '"
                + a
                + "', which is no aggregation: use "
                + String.join(", ", AGGREGATIONS));
      }
    }
    // In Flink's order, each once.
    AGGREGATIONS.stream().filter(asked::contains).forEach(chosen::add);
    return chosen;
  }

  /**
   * The subtask indexes {@code ?subtasks=} names ({@code 0,2-4}); every index when it names none.
   *
   * @throws RestException 400 naming a part that is neither an index nor a range
   */
  static IntPredicate subtaskFilter(List<String> parts) {
    IntPredicate chosen = parts.isEmpty() ? i -> true : i -> false;
    for (String part : parts) {
      String[] bounds = part.split("-", -1);
      if (bounds.length > 2
          || !bounds[0].matches("\\d{1,9}")
          || bounds.length == 2 && !bounds[1].matches("\\d{1,9}")) {
        throw new RestException(
            HttpResponseStatus.BAD_REQUEST,
            "Query parameter 'subtasks' has '"
                + part
                + "', which is neither a subtask index nor a range of them: use e.g."
                + " subtasks=0,2-4");
      }
      int from = Integer.parseInt(bounds[0]);
      int to = bounds.length == 2 ? Integer.parseInt(bounds[1]) : from;
      if (to < from) {
        throw new RestException(
            HttpResponseStatus.BAD_REQUEST,
            "Query parameter 'subtasks' has the range '" + part + "', which ends before it starts");
      }
      chosen = chosen.or(i -> i >= from && i <= to);
    }
    return chosen;
  }

  private static Double number(String text) {
    if (text == null) {
      return null;
    }
    try {
      double value = Double.parseDouble(text);
      return Double.isNaN(value) ? null : value;
    } catch (NumberFormatException e) {
      return null; // a gauge of text: nothing to aggregate
    }
  }
}

package io.weir.cluster.rest.handlers;

import io.netty.handler.codec.http.HttpResponseStatus;
import io.weir.api.JobStatus;
import io.weir.cluster.jobmanager.Dispatcher;
import io.weir.cluster.rest.RestException;
import io.weir.cluster.rest.RestRequest;
import io.weir.cluster.rest.messages.JobRecovery;
import io.weir.cluster.rest.messages.JobVertexInfo;
import io.weir.cluster.rest.messages.JobVertexInfo.BackPressureLevel;
import io.weir.runtime.graph.JobVertex;
import io.weir.runtime.jobmaster.SubtaskStatus;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * A job's vertices with their subtasks' states and counters, as Flink shows them: in {@code GET
 * /jobs/:jobid} ({@link #vertices}), {@code GET /jobs/:jobid/vertices/:vertexid} and {@code GET
 * /jobs/:jobid/vertices/:vertexid/backpressure}. The counters are sampled from the TaskManagers at
 * each call ({@link io.weir.runtime.jobmaster.JobMaster#subtasks()}).
 */
final class VertexHandlers {

  /** Flink's execution states, in Flink's order: the keys of a vertex's {@code tasks}. */
  static final List<String> EXECUTION_STATES =
      List.of(
          "CREATED",
          "SCHEDULED",
          "DEPLOYING",
          "RUNNING",
          "FINISHED",
          "CANCELING",
          "CANCELED",
          "FAILED",
          "RECONCILING",
          "INITIALIZING");

  /** Longer than any TaskManager may take to answer (its deadline is 2 s). */
  private static final long SAMPLE_PATIENCE_SECONDS = 10;

  private VertexHandlers() {}

  /** {@code GET /jobs/:jobid/vertices/:vertexid}: one vertex's subtasks. */
  static final class Details extends DispatcherGet {
    Details(Dispatcher dispatcher) {
      super(dispatcher, "/jobs/:jobid/vertices/:vertexid");
    }

    @Override
    public JobVertexInfo.Details handle(RestRequest request) {
      Dispatcher.Job job = JobLookup.find(dispatcher, request.pathParameter("jobid"));
      JobVertex vertex = vertex(job, request.pathParameter("vertexid"));
      long now = System.currentTimeMillis();
      List<JobVertexInfo.Subtask> subtasks = new ArrayList<>();
      for (SubtaskStatus s : subtasksOf(subtasks(job), vertex.getIndex())) {
        subtasks.add(
            new JobVertexInfo.Subtask(
                s.subtask(),
                s.status(),
                s.attempt(),
                s.endpoint(),
                s.endpoint(),
                s.taskManagerId(),
                s.startTimeMillis(),
                s.endTimeMillis(),
                duration(s.startTimeMillis(), s.endTimeMillis(), now),
                metrics(List.of(s)),
                s.restore() == null ? null : JobRecovery.Progress.of(s.restore())));
      }
      return new JobVertexInfo.Details(
          String.valueOf(vertex.getIndex()),
          vertex.getName(),
          vertex.getMaxParallelism(),
          vertex.getParallelism(),
          now,
          subtasks);
    }
  }

  /** {@code GET /jobs/:jobid/vertices/:vertexid/backpressure}. */
  static final class BackPressure extends DispatcherGet {
    BackPressure(Dispatcher dispatcher) {
      super(dispatcher, "/jobs/:jobid/vertices/:vertexid/backpressure");
    }

    @Override
    public JobVertexInfo.BackPressure handle(RestRequest request) {
      Dispatcher.Job job = JobLookup.find(dispatcher, request.pathParameter("jobid"));
      JobVertex vertex = vertex(job, request.pathParameter("vertexid"));
      List<SubtaskStatus> subtasks = subtasksOf(subtasks(job), vertex.getIndex());
      long now = System.currentTimeMillis();
      double highest = 0;
      List<JobVertexInfo.SubtaskBackPressure> entries = new ArrayList<>();
      for (SubtaskStatus s : subtasks) {
        SubtaskStatus.Io io = s.io();
        boolean known = io != null && !Double.isNaN(io.backPressuredRatio());
        double ratio = known ? io.backPressuredRatio() : 0;
        highest = Math.max(highest, ratio);
        entries.add(
            new JobVertexInfo.SubtaskBackPressure(
                s.subtask(),
                s.attempt(),
                BackPressureLevel.of(ratio).json(),
                known ? ratio : null,
                known ? io.idleRatio() : null,
                known ? io.busyRatio() : null));
      }
      return new JobVertexInfo.BackPressure(
          "ok", BackPressureLevel.of(highest).json(), now, entries);
    }
  }

  /**
   * {@code GET /jobs/:jobid/vertices/:vertexid/watermarks}: each subtask's {@code
   * currentInputWatermark} as Flink serves it, {@code [{"id": "0.currentInputWatermark", "value":
   * "1700000000000"}]}, {@link Long#MIN_VALUE} for a subtask that has none (a source, or before the
   * first watermark); a subtask whose TaskManager did not answer is left out.
   */
  static final class Watermarks extends DispatcherGet {
    Watermarks(Dispatcher dispatcher) {
      super(dispatcher, "/jobs/:jobid/vertices/:vertexid/watermarks");
    }

    @Override
    public List<Map<String, String>> handle(RestRequest request) {
      Dispatcher.Job job = JobLookup.find(dispatcher, request.pathParameter("jobid"));
      JobVertex vertex = vertex(job, request.pathParameter("vertexid"));
      List<Map<String, String>> watermarks = new ArrayList<>();
      for (SubtaskStatus s : subtasksOf(subtasks(job), vertex.getIndex())) {
        if (s.io() == null) {
          continue;
        }
        Map<String, String> entry = new LinkedHashMap<>();
        entry.put("id", s.subtask() + ".currentInputWatermark");
        entry.put("value", String.valueOf(s.io().inputWatermark()));
        watermarks.add(entry);
      }
      return watermarks;
    }
  }

  /**
   * The vertices of {@code job} for {@code GET /jobs/:jobid}, from {@code subtasks} (see {@link
   * #subtasks}).
   */
  static List<JobVertexInfo.Summary> vertices(Dispatcher.Job job, List<SubtaskStatus> subtasks) {
    long now = System.currentTimeMillis();
    List<JobVertexInfo.Summary> vertices = new ArrayList<>();
    for (JobVertex vertex : job.master().graph().vertices()) {
      List<SubtaskStatus> mine = subtasksOf(subtasks, vertex.getIndex());
      Map<String, Integer> tasks = new LinkedHashMap<>();
      EXECUTION_STATES.forEach(state -> tasks.put(state, 0));
      long start = -1;
      long end = -1;
      boolean allEnded = !mine.isEmpty();
      for (SubtaskStatus s : mine) {
        tasks.merge(s.status(), 1, Integer::sum);
        start = start < 0 ? s.startTimeMillis() : Math.min(start, s.startTimeMillis());
        allEnded &= s.endTimeMillis() >= 0;
        end = Math.max(end, s.endTimeMillis());
      }
      long vertexEnd = allEnded ? end : -1;
      vertices.add(
          new JobVertexInfo.Summary(
              String.valueOf(vertex.getIndex()),
              vertex.getName(),
              vertex.getMaxParallelism(),
              vertex.getParallelism(),
              aggregateState(tasks, vertex.getParallelism()),
              start,
              vertexEnd,
              start < 0 ? -1 : duration(start, vertexEnd, now),
              tasks,
              metrics(mine)));
    }
    return vertices;
  }

  /** How many vertices are in each execution state (Flink's {@code status-counts}). */
  static Map<String, Integer> statusCounts(List<JobVertexInfo.Summary> vertices) {
    Map<String, Integer> counts = new LinkedHashMap<>();
    EXECUTION_STATES.forEach(state -> counts.put(state, 0));
    vertices.forEach(v -> counts.merge(v.status(), 1, Integer::sum));
    return counts;
  }

  /** When the job first reached each status, every status present (0: never), as Flink's. */
  static Map<String, Long> timestamps(Dispatcher.Job job) {
    Map<JobStatus, Long> reached = job.master().statusTimestamps();
    Map<String, Long> timestamps = new LinkedHashMap<>();
    for (JobStatus status : JobStatus.values()) {
      timestamps.put(status.name(), reached.getOrDefault(status, 0L));
    }
    return timestamps;
  }

  /**
   * A vertex's state from its subtasks', as Flink's {@code ExecutionJobVertex} aggregates them: the
   * state all share, else FAILED, CANCELING, CANCELED, INITIALIZING, RUNNING (some run or finished)
   * in that order, else CREATED.
   */
  static String aggregateState(Map<String, Integer> tasks, int parallelism) {
    for (Map.Entry<String, Integer> e : tasks.entrySet()) {
      if (e.getValue() == parallelism) {
        return e.getKey();
      }
    }
    for (String state : List.of("FAILED", "CANCELING", "CANCELED", "INITIALIZING")) {
      if (tasks.getOrDefault(state, 0) > 0) {
        return state;
      }
    }
    if (tasks.getOrDefault("RUNNING", 0) > 0 || tasks.getOrDefault("FINISHED", 0) > 0) {
      return "RUNNING";
    }
    return "CREATED";
  }

  /** The subtasks of the job's current attempt, sampled now from the TaskManagers. */
  static List<SubtaskStatus> subtasks(Dispatcher.Job job) {
    try {
      return job.master().subtasks().get(SAMPLE_PATIENCE_SECONDS, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new RestException(
          HttpResponseStatus.SERVICE_UNAVAILABLE, "The JobManager is shutting down");
    } catch (ExecutionException | TimeoutException e) {
      throw new RestException(
          HttpResponseStatus.SERVICE_UNAVAILABLE,
          "The subtasks of job "
              + job.id()
              + " could not be sampled within "
              + SAMPLE_PATIENCE_SECONDS
              + " s: try again");
    }
  }

  private static List<SubtaskStatus> subtasksOf(List<SubtaskStatus> all, int vertex) {
    return all.stream().filter(s -> s.vertex() == vertex).toList();
  }

  /**
   * The vertex the request names, by its index as {@code GET /jobs/:jobid/plan} gives it.
   *
   * @throws RestException 404 naming the vertex and the valid ids
   */
  static JobVertex vertex(Dispatcher.Job job, String id) {
    List<JobVertex> vertices = job.master().graph().vertices();
    if (!id.matches("\\d{1,9}") || Integer.parseInt(id) >= vertices.size()) {
      throw new RestException(
          HttpResponseStatus.NOT_FOUND,
          "Job "
              + job.id()
              + " has no vertex '"
              + id
              + "': its vertices are 0 to "
              + (vertices.size() - 1)
              + " (GET /jobs/"
              + job.id()
              + "/plan lists them)");
    }
    return vertices.get(Integer.parseInt(id));
  }

  private static long duration(long start, long end, long now) {
    return (end < 0 ? now : end) - start;
  }

  /** The counters of {@code subtasks}, summed; complete when every one of them is known. */
  private static JobVertexInfo.IoMetrics metrics(List<SubtaskStatus> subtasks) {
    long in = 0;
    long out = 0;
    long bytesIn = 0;
    long bytesOut = 0;
    long backPressured = 0;
    long idle = 0;
    long busy = 0;
    boolean complete = true;
    for (SubtaskStatus s : subtasks) {
      SubtaskStatus.Io io = s.io();
      if (io == null) {
        complete = false;
        continue;
      }
      in += io.recordsIn();
      out += io.recordsOut();
      bytesIn += io.bytesIn();
      bytesOut += io.bytesOut();
      backPressured += io.backPressuredMillis();
      idle += io.idleMillis();
      busy += io.busyMillis();
    }
    return new JobVertexInfo.IoMetrics(
        bytesIn,
        complete,
        bytesOut,
        complete,
        in,
        complete,
        out,
        complete,
        backPressured,
        idle,
        busy);
  }
}

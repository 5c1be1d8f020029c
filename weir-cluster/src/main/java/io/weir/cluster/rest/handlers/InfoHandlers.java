package io.weir.cluster.rest.handlers;

import io.netty.handler.codec.http.HttpResponseStatus;
import io.weir.api.CheckpointConfig;
import io.weir.api.CheckpointStatistics;
import io.weir.api.CheckpointingMode;
import io.weir.api.ExternalizedCheckpointRetention;
import io.weir.api.JobStatus;
import io.weir.api.config.CheckpointingOptions;
import io.weir.api.config.Configuration;
import io.weir.api.config.CoreOptions;
import io.weir.cluster.ClusterOptions;
import io.weir.cluster.jobmanager.Dispatcher;
import io.weir.cluster.jobmanager.TaskManagerRegistry;
import io.weir.cluster.rest.RestException;
import io.weir.cluster.rest.RestRequest;
import io.weir.cluster.rest.messages.CheckpointConfigInfo;
import io.weir.cluster.rest.messages.CheckpointingStatistics;
import io.weir.cluster.rest.messages.ClusterOverview;
import io.weir.cluster.rest.messages.ConfigEntry;
import io.weir.cluster.rest.messages.DashboardConfig;
import io.weir.cluster.rest.messages.JarList;
import io.weir.cluster.rest.messages.JobConfigInfo;
import io.weir.cluster.rest.messages.JobPlan;
import io.weir.cluster.rest.messages.TaskManagersResponse;
import io.weir.runtime.graph.JobEdge;
import io.weir.runtime.graph.JobGraph;
import io.weir.runtime.graph.JobVertex;
import io.weir.runtime.graph.StreamNode;
import io.weir.runtime.recovery.RestartStrategies;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.TimeZone;
import java.util.TreeMap;
import java.util.stream.Collectors;

/**
 * What an operator (or a dashboard) reads of the cluster and of a job beyond its status, with
 * Flink's paths and fields: {@code /overview}, {@code /config}, {@code /jobmanager/config}, {@code
 * GET /jars}, {@code /taskmanagers/:taskmanagerid}, and per job {@code /config}, {@code /plan},
 * {@code /checkpoints/config} and {@code /checkpoints/details/:checkpointid}. The cluster secret is
 * never shown.
 */
final class InfoHandlers {

  /** How often a dashboard polls, in milliseconds (Flink's {@code web.refresh-interval}). */
  private static final long REFRESH_MILLIS = 3000;

  private static final String HIDDEN = "******";

  private InfoHandlers() {}

  /** Weir's version, as the jar's manifest has it. */
  static String version() {
    String version = Dispatcher.class.getPackage().getImplementationVersion();
    return version != null ? version : "dev";
  }

  /** {@code GET /overview}: TaskManagers, slots, and jobs by state. */
  static final class Overview extends DispatcherGet {
    private final TaskManagerRegistry registry;

    Overview(Dispatcher dispatcher, TaskManagerRegistry registry) {
      super(dispatcher, "/overview");
      this.registry = registry;
    }

    @Override
    public ClusterOverview handle(RestRequest request) {
      List<TaskManagerRegistry.TaskManager> tms = registry.taskManagers();
      Map<JobStatus, Long> byStatus =
          dispatcher.jobs().stream()
              .collect(Collectors.groupingBy(Dispatcher.Job::status, Collectors.counting()));
      int running = 0;
      for (Map.Entry<JobStatus, Long> e : byStatus.entrySet()) {
        if (!e.getKey().isGloballyTerminalState() && e.getKey() != JobStatus.SUSPENDED) {
          running += e.getValue().intValue();
        }
      }
      return new ClusterOverview(
          tms.size(),
          tms.stream().mapToInt(TaskManagerRegistry.TaskManager::slots).sum(),
          tms.stream().mapToInt(TaskManagerRegistry.TaskManager::freeSlots).sum(),
          running,
          byStatus.getOrDefault(JobStatus.FINISHED, 0L).intValue(),
          byStatus.getOrDefault(JobStatus.CANCELED, 0L).intValue(),
          byStatus.getOrDefault(JobStatus.FAILED, 0L).intValue(),
          version());
    }
  }

  /** {@code GET /config}: what a dashboard needs to know of this server. */
  static final class Config extends DispatcherGet {
    Config(Dispatcher dispatcher) {
      super(dispatcher, "/config");
    }

    @Override
    public DashboardConfig handle(RestRequest request) {
      TimeZone zone = TimeZone.getDefault();
      return new DashboardConfig(
          REFRESH_MILLIS,
          ZoneId.systemDefault().getId(),
          zone.getOffset(System.currentTimeMillis()),
          version(),
          new DashboardConfig.Features(true, true));
    }
  }

  /** {@code GET /jobmanager/config}: this JobManager's settings, the secret hidden. */
  static final class JobManagerConfig extends DispatcherGet {
    JobManagerConfig(Dispatcher dispatcher) {
      super(dispatcher, "/jobmanager/config");
    }

    @Override
    public List<ConfigEntry> handle(RestRequest request) {
      return entries(dispatcher.options().configuration().toMap());
    }
  }

  /** The settings as Flink lists them, sorted by key, the secret hidden. */
  static List<ConfigEntry> entries(Map<String, String> settings) {
    List<ConfigEntry> entries = new ArrayList<>();
    new TreeMap<>(hideSecret(settings)).forEach((k, v) -> entries.add(new ConfigEntry(k, v)));
    return entries;
  }

  private static Map<String, String> hideSecret(Map<String, String> settings) {
    Map<String, String> shown = new TreeMap<>(settings);
    shown.computeIfPresent(ClusterOptions.SECRET.key(), (k, v) -> HIDDEN);
    return shown;
  }

  /** {@code GET /jars}: the jars uploaded here, newest first. */
  static final class Jars extends DispatcherGet {
    Jars(Dispatcher dispatcher) {
      super(dispatcher, "/jars");
    }

    @Override
    public JarList handle(RestRequest request) {
      try {
        return new JarList(
            "http://" + request.http().headers().get("Host", "127.0.0.1"),
            dispatcher.jars().list().stream()
                .map(j -> new JarList.JarFile(j.id(), j.name(), j.uploadedMillis()))
                .toList());
      } catch (IOException e) {
        throw new UncheckedIOException("Cannot list the uploaded jars: " + e.getMessage(), e);
      }
    }
  }

  /** {@code GET /taskmanagers/:taskmanagerid}: one TaskManager as of its last heartbeat. */
  static final class TaskManagerDetails extends DispatcherGet {
    private final TaskManagerRegistry registry;

    TaskManagerDetails(Dispatcher dispatcher, TaskManagerRegistry registry) {
      super(dispatcher, "/taskmanagers/:taskmanagerid");
      this.registry = registry;
    }

    @Override
    public TaskManagersResponse.TaskManagerInfo handle(RestRequest request) {
      return TaskManagersHandler.info(
          TaskManagersHandler.find(registry, request.pathParameter("taskmanagerid")));
    }
  }

  /**
   * {@code GET /taskmanagers/:taskmanagerid/metrics}: the TaskManager's JVM metrics as of its last
   * heartbeat, by Flink's names ({@code Status.JVM.*}); their names, or with {@code ?get=} their
   * values as text.
   */
  static final class TaskManagerMetrics extends DispatcherGet {
    private final TaskManagerRegistry registry;

    TaskManagerMetrics(Dispatcher dispatcher, TaskManagerRegistry registry) {
      super(dispatcher, "/taskmanagers/:taskmanagerid/metrics");
      this.registry = registry;
    }

    @Override
    public List<Map<String, String>> handle(RestRequest request) {
      TaskManagerRegistry.TaskManager tm =
          TaskManagersHandler.find(registry, request.pathParameter("taskmanagerid"));
      return MetricQuery.namesOrValues(
          new TreeMap<>(tm.status().getJvmMetricsMap()), request.queryParameter("get"));
    }
  }

  /** {@code GET /jobs/:jobid/config}: how the job runs. */
  static final class JobConfig extends DispatcherGet {
    JobConfig(Dispatcher dispatcher) {
      super(dispatcher, "/jobs/:jobid/config");
    }

    @Override
    public JobConfigInfo handle(RestRequest request) {
      Dispatcher.Job job = JobLookup.find(dispatcher, request.pathParameter("jobid"));
      Configuration conf = job.master().graph().configuration();
      return new JobConfigInfo(
          job.id(),
          job.name(),
          new JobConfigInfo.ExecutionConfig(
              RestartStrategies.fromConfiguration(conf, new Random()).describe(),
              conf.get(CoreOptions.DEFAULT_PARALLELISM),
              conf.get(CoreOptions.OBJECT_REUSE),
              hideSecret(conf.toMap())));
    }
  }

  /** {@code GET /jobs/:jobid/plan}: the job's vertices and edges. */
  static final class Plan extends DispatcherGet {
    Plan(Dispatcher dispatcher) {
      super(dispatcher, "/jobs/:jobid/plan");
    }

    @Override
    public JobPlan handle(RestRequest request) {
      return new JobPlan(plan(JobLookup.find(dispatcher, request.pathParameter("jobid"))));
    }
  }

  /** {@code job}'s vertices and edges, as {@code /jobs/:jobid/plan} and {@code /jobs/:jobid}. */
  static JobPlan.Plan plan(Dispatcher.Job job) {
    JobGraph graph = job.master().graph();
    List<JobPlan.Node> nodes = new ArrayList<>();
    for (JobVertex vertex : graph.vertices()) {
      List<JobPlan.Input> inputs = new ArrayList<>();
      for (JobEdge edge : vertex.getInputs()) {
        inputs.add(
            new JobPlan.Input(
                inputs.size(),
                String.valueOf(edge.producer().getIndex()),
                edge.streamEdge()
                    .partitioning()
                    .getClass()
                    .getSimpleName()
                    .toUpperCase(Locale.ROOT)));
      }
      String chain =
          vertex.getChain().stream().map(StreamNode::getName).collect(Collectors.joining(" -> "));
      nodes.add(
          new JobPlan.Node(
              String.valueOf(vertex.getIndex()), vertex.getParallelism(), chain, chain, inputs));
    }
    return new JobPlan.Plan(job.id(), job.name(), nodes);
  }

  /** {@code GET /jobs/:jobid/checkpoints/config}: how the job takes checkpoints. */
  static final class CheckpointSettings extends DispatcherGet {
    CheckpointSettings(Dispatcher dispatcher) {
      super(dispatcher, "/jobs/:jobid/checkpoints/config");
    }

    @Override
    public CheckpointConfigInfo handle(RestRequest request) {
      Dispatcher.Job job = JobLookup.find(dispatcher, request.pathParameter("jobid"));
      Configuration conf = job.master().graph().configuration();
      CheckpointConfig cc = new CheckpointConfig(conf);
      return new CheckpointConfigInfo(
          cc.getCheckpointingMode() == CheckpointingMode.EXACTLY_ONCE
              ? "exactly_once"
              : "at_least_once",
          cc.isCheckpointingEnabled() ? cc.getCheckpointInterval().toMillis() : 0,
          cc.getCheckpointTimeout().toMillis(),
          cc.getMinPauseBetweenCheckpoints().toMillis(),
          cc.getMaxConcurrentCheckpoints(),
          new CheckpointConfigInfo.Externalization(
              cc.isExternalizedCheckpointsEnabled(),
              cc.getExternalizedCheckpointRetention()
                  == ExternalizedCheckpointRetention.DELETE_ON_CANCELLATION),
          conf.get(CheckpointingOptions.STATE_BACKEND),
          cc.getCheckpointDirectory().orElse(cc.getCheckpointStorage()),
          cc.isUnalignedCheckpointsEnabled(),
          cc.getTolerableCheckpointFailureNumber(),
          cc.getAlignedCheckpointTimeout().toMillis(),
          cc.getNumRetainedCheckpoints());
    }
  }

  /**
   * {@code GET /jobs/:jobid/metrics}: as Flink's, the job's metric names ({@code [{"id"}]}), or
   * with {@code ?get=a,b} their values now ({@code [{"id", "value"}]}, values as text); a name the
   * job has not is 400 naming it.
   */
  static final class Metrics extends DispatcherGet {
    Metrics(Dispatcher dispatcher) {
      super(dispatcher, "/jobs/:jobid/metrics");
    }

    @Override
    public List<Map<String, String>> handle(RestRequest request) {
      Dispatcher.Job job = JobLookup.find(dispatcher, request.pathParameter("jobid"));
      Map<String, Long> metrics = job.master().currentMetrics().asMap();
      List<String> asked = request.queryParameter("get");
      List<Map<String, String>> answer = new ArrayList<>();
      if (asked.isEmpty()) {
        metrics.keySet().forEach(name -> answer.add(Map.of("id", name)));
        return answer;
      }
      for (String name : asked) {
        Long value = metrics.get(name);
        if (value == null) {
          throw new RestException(
              HttpResponseStatus.BAD_REQUEST,
              "Job "
                  + job.id()
                  + " has no metric '"
                  + name
                  + "': it has "
                  + String.join(", ", metrics.keySet()));
        }
        answer.add(Map.of("id", name, "value", String.valueOf(value)));
      }
      return answer;
    }
  }

  /** {@code GET /jobs/:jobid/checkpoints/details/:checkpointid}: one checkpoint, per subtask. */
  static final class CheckpointDetails extends DispatcherGet {
    CheckpointDetails(Dispatcher dispatcher) {
      super(dispatcher, "/jobs/:jobid/checkpoints/details/:checkpointid");
    }

    @Override
    public CheckpointingStatistics.Checkpoint handle(RestRequest request) {
      return JobHandlers.checkpoint(findCheckpoint(dispatcher, request));
    }
  }

  /**
   * {@code GET /jobs/:jobid/checkpoints/details/:checkpointid/subtasks/:vertexid}: one vertex's
   * subtasks in one checkpoint.
   */
  static final class VertexCheckpointDetails extends DispatcherGet {
    VertexCheckpointDetails(Dispatcher dispatcher) {
      super(dispatcher, "/jobs/:jobid/checkpoints/details/:checkpointid/subtasks/:vertexid");
    }

    @Override
    public CheckpointingStatistics.VertexCheckpoint handle(RestRequest request) {
      CheckpointStatistics found = findCheckpoint(dispatcher, request);
      String vertex = request.pathParameter("vertexid");
      VertexHandlers.vertex(JobLookup.find(dispatcher, request.pathParameter("jobid")), vertex);
      CheckpointingStatistics.Checkpoint checkpoint = JobHandlers.checkpoint(found);
      return new CheckpointingStatistics.VertexCheckpoint(
          checkpoint.id(),
          checkpoint.status(),
          vertex,
          checkpoint.subtasks().stream().filter(t -> t.vertexId().equals(vertex)).toList());
    }
  }

  /** The statistics of the checkpoint the request names, or 400/404 naming what is wrong. */
  private static CheckpointStatistics findCheckpoint(Dispatcher dispatcher, RestRequest request) {
    Dispatcher.Job job = JobLookup.find(dispatcher, request.pathParameter("jobid"));
    String raw = request.pathParameter("checkpointid");
    long id;
    try {
      id = Long.parseLong(raw);
    } catch (NumberFormatException e) {
      throw new RestException(
          HttpResponseStatus.BAD_REQUEST, "'" + raw + "' is no checkpoint id (a number)");
    }
    for (CheckpointStatistics c : job.master().getCheckpointStatistics()) {
      if (c.checkpointId() == id) {
        return c;
      }
    }
    throw new RestException(
        HttpResponseStatus.NOT_FOUND,
        "Job "
            + job.id()
            + " has no statistics of checkpoint "
            + id
            + " (it never ran, or is older than the history kept, web.checkpoints.history): list"
            + " them with GET /jobs/"
            + job.id()
            + "/checkpoints");
  }
}

package io.weir.cluster.rest.handlers;

import io.weir.cluster.jobmanager.Dispatcher;
import io.weir.cluster.jobmanager.TaskManagerRegistry;
import io.weir.cluster.rest.RestHandler;
import io.weir.cluster.rest.Router;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * The JobManager's REST API with Flink's paths (the list is in docs/cluster.md, "REST API"): {@code
 * POST /jars/upload}, {@code GET /jars}, {@code POST /jars/:jarid/run}, {@code GET /jobs}, {@code
 * GET /jobs/overview}, {@code GET /jobs/:jobid}, {@code GET /jobs/:jobid/exceptions}, {@code GET
 * /jobs/:jobid/checkpoints}, {@code PATCH /jobs/:jobid} or {@code POST /jobs/:jobid/cancel}, {@code
 * POST /jobs/:jobid/savepoints}, {@code POST /jobs/:jobid/stop} and {@code GET
 * /jobs/:jobid/savepoints/:triggerid} (asynchronous, as Flink's: the POST answers a {@code
 * request-id} to poll), {@code GET /taskmanagers}, {@code GET /jobs/:jobid/vertices/:vertexid} and
 * {@code .../backpressure} and {@code .../watermarks} (see {@link VertexHandlers}), {@code GET
 * /jobs/:jobid/recovery} (see {@link RecoveryHandler}); and the probes {@code GET /health} and
 * {@code GET /health/leader} (see {@link HealthHandlers}); the web dashboard at {@code GET /} (see
 * {@link DashboardHandlers}). Under high availability a standby answers 503 on every path but the
 * probes, the dashboard's files and the OpenAPI description.
 */
public final class JobManagerEndpoints {

  private final SavepointHandlers.Triggers triggers = new SavepointHandlers.Triggers();
  private final CheckpointTriggerHandlers.Triggers checkpointTriggers =
      new CheckpointTriggerHandlers.Triggers();
  private final Router router;

  public JobManagerEndpoints(Dispatcher dispatcher, TaskManagerRegistry registry) {
    List<RestHandler> leaderOnly =
        List.of(
            new JarHandlers.Upload(dispatcher),
            new JarHandlers.Run(dispatcher),
            new JobHandlers.Jobs(dispatcher),
            new JobHandlers.Overview(dispatcher),
            new JobHandlers.Details(dispatcher),
            new JobHandlers.Status(dispatcher),
            new JobHandlers.Exceptions(dispatcher),
            new JobHandlers.Checkpoints(dispatcher),
            JobHandlers.Cancel.patch(dispatcher),
            JobHandlers.Cancel.post(dispatcher),
            new SavepointHandlers.Trigger(dispatcher, triggers),
            new SavepointHandlers.Stop(dispatcher, triggers),
            new SavepointHandlers.Status(dispatcher, triggers),
            new CheckpointTriggerHandlers.Trigger(dispatcher, checkpointTriggers),
            new CheckpointTriggerHandlers.Status(dispatcher, checkpointTriggers),
            new TaskManagersHandler(registry),
            new InfoHandlers.Overview(dispatcher, registry),
            new InfoHandlers.Config(dispatcher),
            new InfoHandlers.JobManagerConfig(dispatcher),
            new JobManagerMetricsHandler(dispatcher, registry),
            new InfoHandlers.Jars(dispatcher),
            new InfoHandlers.TaskManagerDetails(dispatcher, registry),
            new InfoHandlers.TaskManagerMetrics(dispatcher, registry),
            new InfoHandlers.JobConfig(dispatcher),
            new InfoHandlers.Plan(dispatcher),
            new InfoHandlers.CheckpointSettings(dispatcher),
            new InfoHandlers.CheckpointDetails(dispatcher),
            new InfoHandlers.VertexCheckpointDetails(dispatcher),
            new InfoHandlers.Metrics(dispatcher),
            new VertexHandlers.Details(dispatcher),
            new VertexHandlers.BackPressure(dispatcher),
            new VertexHandlers.Watermarks(dispatcher),
            new VertexMetricsHandlers.Vertex(dispatcher),
            new VertexMetricsHandlers.Aggregated(dispatcher),
            new VertexMetricsHandlers.Subtask(dispatcher),
            new RecoveryHandler(dispatcher));
    List<RestHandler> handlers = new ArrayList<>();
    handlers.add(new HealthHandlers.Alive(dispatcher));
    handlers.add(new HealthHandlers.Leader(dispatcher));
    handlers.add(new OpenApiHandler());
    // Static files: a standby serves them too (the page then shows the API's 503s).
    handlers.add(new DashboardHandlers.Index());
    handlers.add(new DashboardHandlers.Asset());
    leaderOnly.forEach(h -> handlers.add(HealthHandlers.leaderOnly(h, dispatcher)));
    this.router = new Router(handlers);
  }

  public Router router() {
    return router;
  }

  /**
   * Completes once every savepoint or stop triggered so far for the job has ended and its outcome
   * has been written to a client that asked for it: a client polling for the savepoint of a stop
   * gets its answer even though the job has ended.
   */
  public CompletableFuture<Void> savepointOutcomesSent(String jobId) {
    return triggers.outcomesSent(jobId);
  }
}

package io.weir.cluster.rest.handlers;

import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.weir.api.config.CheckpointingOptions;
import io.weir.cluster.jobmanager.Dispatcher;
import io.weir.cluster.rest.AbstractRestHandler;
import io.weir.cluster.rest.RestException;
import io.weir.cluster.rest.RestRequest;
import io.weir.cluster.rest.messages.SavepointStatus;
import io.weir.cluster.rest.messages.SavepointTriggerRequest;
import io.weir.cluster.rest.messages.StopWithSavepointRequest;
import io.weir.cluster.rest.messages.TriggerResponse;
import io.weir.cluster.rpc.WeirMessages;
import io.weir.runtime.storage.FileSystems;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Savepoints, asynchronous as Flink's: {@code POST /jobs/:jobid/savepoints} and {@code POST
 * /jobs/:jobid/stop} answer a trigger id, {@code GET /jobs/:jobid/savepoints/:triggerid} the
 * outcome.
 */
final class SavepointHandlers {

  private static final Logger LOG = LoggerFactory.getLogger(SavepointHandlers.class);

  private SavepointHandlers() {}

  /**
   * Savepoints and stops triggered through the API, by job id and trigger id, each with its outcome
   * and whether a client has been sent that outcome (the local session cluster of {@code weir run}
   * serves until it has). Thread safe.
   */
  static final class Triggers {
    private record Trigger(
        String jobId, CompletableFuture<String> savepoint, CompletableFuture<Void> answered) {}

    private final Map<String, Trigger> triggers = new ConcurrentHashMap<>();

    String register(String jobId, CompletableFuture<String> savepoint) {
      String triggerId = UUID.randomUUID().toString().replace("-", "");
      triggers.put(
          jobId + "/" + triggerId, new Trigger(jobId, savepoint, new CompletableFuture<>()));
      return triggerId;
    }

    CompletableFuture<Void> outcomesSent(String jobId) {
      return CompletableFuture.allOf(
          triggers.values().stream()
              .filter(t -> t.jobId().equals(jobId))
              .map(Trigger::answered)
              .toArray(CompletableFuture[]::new));
    }
  }

  /** A handler of the savepoint endpoints: the jobs it looks up, the triggers it shares. */
  private abstract static class SavepointHandler extends AbstractRestHandler {
    final Dispatcher dispatcher;
    final Triggers triggers;

    SavepointHandler(Dispatcher dispatcher, Triggers triggers, HttpMethod method, String path) {
      super(method, path);
      this.dispatcher = dispatcher;
      this.triggers = triggers;
    }

    /**
     * The {@code target-directory} a call names: null (the job's own savepoint directory) or a
     * place every process reads alike.
     *
     * @throws RestException 400 for a relative path, which would land wherever the JobManager and
     *     each TaskManager happen to run; 403 for one outside {@code security.rest.savepoint-root}
     */
    String targetDirectory(String dir) {
      if (dir != null && !FileSystems.isAbsolute(dir)) {
        throw new RestException(
            HttpResponseStatus.BAD_REQUEST,
            "target-directory '"
                + dir
                + "' is a relative path: give an absolute path or a URI every TaskManager"
                + " reaches (hdfs://..., s3://..., file:///...), or leave it out for the job's "
                + CheckpointingOptions.SAVEPOINT_DIRECTORY.key());
      }
      new ClientPaths(dispatcher.options()).check(dir, "target-directory");
      return dir;
    }
  }

  /** {@code POST /jobs/:jobid/savepoints}: a savepoint, and with {@code cancel-job} a cancel. */
  static final class Trigger extends SavepointHandler {
    Trigger(Dispatcher dispatcher, Triggers triggers) {
      super(dispatcher, triggers, HttpMethod.POST, "/jobs/:jobid/savepoints");
    }

    @Override
    public TriggerResponse handle(RestRequest request) {
      Dispatcher.Job job = JobLookup.find(dispatcher, request.pathParameter("jobid"));
      SavepointTriggerRequest body = request.body(SavepointTriggerRequest.class);
      String dir = targetDirectory(body.targetDirectory());
      LOG.info(
          "Savepoint of job '{}' ({}) into {} on request of {}",
          job.name(),
          job.id(),
          dir == null ? "the default savepoint directory" : dir,
          request.remoteAddress());
      CompletableFuture<String> savepoint = job.master().triggerSavepoint(dir);
      if (body.cancelJob()) {
        savepoint =
            savepoint.thenCompose(location -> job.master().cancel().thenApply(v -> location));
      }
      return new TriggerResponse(triggers.register(job.id(), savepoint));
    }
  }

  /** {@code POST /jobs/:jobid/stop}: stop with a savepoint, and with {@code drain} drained. */
  static final class Stop extends SavepointHandler {
    Stop(Dispatcher dispatcher, Triggers triggers) {
      super(dispatcher, triggers, HttpMethod.POST, "/jobs/:jobid/stop");
    }

    @Override
    public TriggerResponse handle(RestRequest request) {
      Dispatcher.Job job = JobLookup.find(dispatcher, request.pathParameter("jobid"));
      StopWithSavepointRequest body = request.body(StopWithSavepointRequest.class);
      LOG.info(
          "Stopping job '{}' ({}) with a savepoint{} on request of {}",
          job.name(),
          job.id(),
          body.drain() ? " and drain" : "",
          request.remoteAddress());
      return new TriggerResponse(
          triggers.register(
              job.id(),
              job.master()
                  .stopWithSavepoint(targetDirectory(body.targetDirectory()), body.drain())));
    }
  }

  /** {@code GET /jobs/:jobid/savepoints/:triggerid}: in progress, its location, or its failure. */
  static final class Status extends SavepointHandler {
    Status(Dispatcher dispatcher, Triggers triggers) {
      super(dispatcher, triggers, HttpMethod.GET, "/jobs/:jobid/savepoints/:triggerid");
    }

    @Override
    public Object handle(RestRequest request) {
      Dispatcher.Job job = JobLookup.find(dispatcher, request.pathParameter("jobid"));
      String triggerId = request.pathParameter("triggerid");
      Triggers.Trigger trigger = triggers.triggers.get(job.id() + "/" + triggerId);
      if (trigger == null) {
        throw new RestException(
            HttpResponseStatus.NOT_FOUND,
            "No savepoint with trigger id " + triggerId + " for job " + job.id());
      }
      CompletableFuture<String> savepoint = trigger.savepoint();
      if (!savepoint.isDone()) {
        return SavepointStatus.inProgress();
      }
      SavepointStatus outcome;
      try {
        outcome = SavepointStatus.completed(savepoint.join());
      } catch (CompletionException | CancellationException e) {
        Throwable cause = e.getCause() != null ? e.getCause() : e;
        outcome = SavepointStatus.failed(cause.getClass().getName(), WeirMessages.describe(cause));
      }
      return new AnswerThen(outcome, () -> trigger.answered().complete(null));
    }
  }
}

package io.weir.cluster.rest.handlers;

import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.weir.api.CheckpointStatistics;
import io.weir.api.JobStatus;
import io.weir.api.config.CheckpointingOptions;
import io.weir.cluster.jobmanager.Dispatcher;
import io.weir.cluster.rest.AbstractRestHandler;
import io.weir.cluster.rest.RestException;
import io.weir.cluster.rest.RestRequest;
import io.weir.cluster.rest.messages.CheckpointTriggerRequest;
import io.weir.cluster.rest.messages.CheckpointTriggerStatus;
import io.weir.cluster.rest.messages.TriggerResponse;
import java.time.Duration;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Checkpoints on request, asynchronous as Flink 1.19's: {@code POST /jobs/:jobid/checkpoints}
 * answers a trigger id, {@code GET /jobs/:jobid/checkpoints/:triggerid} the outcome. The
 * coordinator starts the next checkpoint as soon as its minimum pause allows, a full one for {@code
 * "checkpointType": "FULL"}; the outcome is the first checkpoint (not savepoint) it starts from
 * then on.
 */
final class CheckpointTriggerHandlers {

  private static final Logger LOG = LoggerFactory.getLogger(CheckpointTriggerHandlers.class);

  private CheckpointTriggerHandlers() {}

  /** The triggers, by job and trigger id: the first checkpoint id each may be answered with. */
  static final class Triggers {
    private final Map<String, Long> firstIds = new ConcurrentHashMap<>();
  }

  /** {@code POST /jobs/:jobid/checkpoints}. */
  static final class Trigger extends AbstractRestHandler {
    private final Dispatcher dispatcher;
    private final Triggers triggers;

    Trigger(Dispatcher dispatcher, Triggers triggers) {
      super(HttpMethod.POST, "/jobs/:jobid/checkpoints");
      this.dispatcher = dispatcher;
      this.triggers = triggers;
    }

    @Override
    public TriggerResponse handle(RestRequest request) throws Exception {
      Dispatcher.Job job = JobLookup.find(dispatcher, request.pathParameter("jobid"));
      CheckpointTriggerRequest body = request.body(CheckpointTriggerRequest.class);
      boolean full = isFull(body == null ? null : body.checkpointType());
      Duration interval =
          job.master()
              .graph()
              .configuration()
              .getOptional(CheckpointingOptions.CHECKPOINTING_INTERVAL)
              .orElse(Duration.ZERO);
      if (interval.isZero() || interval.isNegative()) {
        throw new RestException(
            HttpResponseStatus.CONFLICT,
            "Job '"
                + job.name()
                + "' ("
                + job.id()
                + ") does not take checkpoints: set "
                + CheckpointingOptions.CHECKPOINTING_INTERVAL.key()
                + " when submitting it");
      }
      JobStatus status = job.master().getJobStatus().join();
      if (status != JobStatus.RUNNING) {
        throw new RestException(
            HttpResponseStatus.CONFLICT,
            "Job '" + job.name() + "' (" + job.id() + ") is " + status + ", not RUNNING");
      }
      long firstId = job.master().coordinator().triggerCheckpointSoon(full);
      String triggerId = UUID.randomUUID().toString().replace("-", "");
      triggers.firstIds.put(job.id() + "/" + triggerId, firstId);
      LOG.info(
          "{} of job '{}' ({}) on request of {}",
          full ? "Full checkpoint" : "Checkpoint",
          job.name(),
          job.id(),
          request.remoteAddress());
      return new TriggerResponse(triggerId);
    }
  }

  /**
   * Flink's {@code checkpointType}: {@code CONFIGURED} (or none) and {@code INCREMENTAL} take a
   * checkpoint of the kind the job is configured with (a job configured with full checkpoints takes
   * a full one for {@code INCREMENTAL}, as Flink's does), {@code FULL} one that refers to no file
   * of an earlier checkpoint.
   *
   * @return true for {@code FULL}
   */
  static boolean isFull(String checkpointType) {
    String type = checkpointType == null ? "CONFIGURED" : checkpointType.toUpperCase(Locale.ROOT);
    return switch (type) {
      case "CONFIGURED", "INCREMENTAL" -> false;
      case "FULL" -> true;
      default ->
          throw new RestException(
              HttpResponseStatus.BAD_REQUEST,
              "checkpointType "
                  + checkpointType
                  + " is not one of CONFIGURED, FULL or INCREMENTAL; leave it out for a checkpoint"
                  + " of the kind the job is configured with ("
                  + CheckpointingOptions.INCREMENTAL_CHECKPOINTS.key()
                  + ")");
    };
  }

  /** {@code GET /jobs/:jobid/checkpoints/:triggerid}. */
  static final class Status extends AbstractRestHandler {
    private final Dispatcher dispatcher;
    private final Triggers triggers;

    Status(Dispatcher dispatcher, Triggers triggers) {
      super(HttpMethod.GET, "/jobs/:jobid/checkpoints/:triggerid");
      this.dispatcher = dispatcher;
      this.triggers = triggers;
    }

    @Override
    public CheckpointTriggerStatus handle(RestRequest request) {
      Dispatcher.Job job = JobLookup.find(dispatcher, request.pathParameter("jobid"));
      String triggerId = request.pathParameter("triggerid");
      Long firstId = triggers.firstIds.get(job.id() + "/" + triggerId);
      if (firstId == null) {
        throw new RestException(
            HttpResponseStatus.NOT_FOUND,
            "No checkpoint with trigger id " + triggerId + " for job " + job.id());
      }
      for (CheckpointStatistics s : job.master().getCheckpointStatistics()) {
        if (s.savepoint() || s.checkpointId() < firstId) {
          continue;
        }
        switch (s.status()) {
          case COMPLETED -> {
            return CheckpointTriggerStatus.completed(s.checkpointId());
          }
          case FAILED -> {
            return CheckpointTriggerStatus.failed(
                "io.weir.runtime.checkpoint.CheckpointException",
                "Checkpoint "
                    + s.checkpointId()
                    + " of job "
                    + job.id()
                    + " failed: "
                    + s.failureMessage());
          }
          case IN_PROGRESS -> {
            return CheckpointTriggerStatus.inProgress();
          }
        }
      }
      if (job.master().getJobExecutionResult().isDone()) {
        return CheckpointTriggerStatus.failed(
            "java.lang.IllegalStateException",
            "Job " + job.id() + " ended before the checkpoint was taken");
      }
      return CheckpointTriggerStatus.inProgress();
    }
  }
}

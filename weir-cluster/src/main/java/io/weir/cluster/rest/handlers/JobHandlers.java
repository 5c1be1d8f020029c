package io.weir.cluster.rest.handlers;

import io.netty.handler.codec.http.HttpMethod;
import io.weir.api.CheckpointStatistics;
import io.weir.api.JobExecutionException;
import io.weir.cluster.jobmanager.ClusterGateway;
import io.weir.cluster.jobmanager.Dispatcher;
import io.weir.cluster.jobmanager.ExceptionHistory;
import io.weir.cluster.rest.AbstractRestHandler;
import io.weir.cluster.rest.RestRequest;
import io.weir.cluster.rest.messages.CancelJobResponse;
import io.weir.cluster.rest.messages.CheckpointingStatistics;
import io.weir.cluster.rest.messages.JobDetails;
import io.weir.cluster.rest.messages.JobExceptions;
import io.weir.cluster.rest.messages.JobSummary;
import io.weir.cluster.rest.messages.JobsOverview;
import io.weir.cluster.rest.messages.JobsResponse;
import io.weir.cluster.rpc.WeirMessages;
import io.weir.runtime.jobmaster.JobMaster;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** The jobs resource: listing, one job's summary, exceptions and checkpoints, cancelling. */
final class JobHandlers {

  private static final Logger LOG = LoggerFactory.getLogger(JobHandlers.class);

  private JobHandlers() {}

  /** {@code GET /jobs}: every job's id and status. */
  static final class Jobs extends DispatcherGet {
    Jobs(Dispatcher dispatcher) {
      super(dispatcher, "/jobs");
    }

    @Override
    public JobsResponse handle(RestRequest request) {
      List<JobsResponse.JobIdWithStatus> jobs = new ArrayList<>();
      for (Dispatcher.Job job : dispatcher.jobs()) {
        jobs.add(new JobsResponse.JobIdWithStatus(job.id(), job.status().name()));
      }
      return new JobsResponse(jobs);
    }
  }

  /** {@code GET /jobs/overview}: every job's summary. */
  static final class Overview extends DispatcherGet {
    Overview(Dispatcher dispatcher) {
      super(dispatcher, "/jobs/overview");
    }

    @Override
    public JobsOverview handle(RestRequest request) {
      return new JobsOverview(
          dispatcher.jobs().stream().map(job -> summary(job).withTasks(tasks(job))).toList());
    }

    /**
     * The job's subtasks by state, as Flink's overview counts them: a RUNNING job whose subtasks
     * are SCHEDULED waits for slots, which {@code weir list} says. Null when its TaskManagers could
     * not be asked.
     */
    private static JobSummary.Tasks tasks(Dispatcher.Job job) {
      List<String> states;
      try {
        states = VertexHandlers.subtasks(job).stream().map(s -> s.status()).toList();
      } catch (io.weir.cluster.rest.RestException e) {
        return null; // the rest of the list is still worth answering
      }
      int total = 0;
      for (var vertex : job.master().graph().vertices()) {
        total += vertex.getParallelism();
      }
      return JobSummary.Tasks.of(total, states);
    }
  }

  /** {@code GET /jobs/:jobid/status}: the job's status alone, {@code {"status"}}, as Flink's. */
  static final class Status extends DispatcherGet {
    Status(Dispatcher dispatcher) {
      super(dispatcher, "/jobs/:jobid/status");
    }

    @Override
    public Map<String, String> handle(RestRequest request) {
      return Map.of("status", JobLookup.find(dispatcher, jobId(request)).status().name());
    }
  }

  /** {@code GET /jobs/:jobid}: a job's summary, plan, vertices and exception history. */
  static final class Details extends DispatcherGet {
    Details(Dispatcher dispatcher) {
      super(dispatcher, "/jobs/:jobid");
    }

    @Override
    public JobDetails handle(RestRequest request) {
      Dispatcher.Job job = JobLookup.find(dispatcher, jobId(request));
      var vertices = VertexHandlers.vertices(job, VertexHandlers.subtasks(job));
      return JobDetails.of(
          summary(job),
          exceptions(job),
          InfoHandlers.plan(job),
          vertices,
          VertexHandlers.statusCounts(vertices),
          VertexHandlers.timestamps(job));
    }
  }

  /** {@code GET /jobs/:jobid/exceptions}. */
  static final class Exceptions extends DispatcherGet {
    Exceptions(Dispatcher dispatcher) {
      super(dispatcher, "/jobs/:jobid/exceptions");
    }

    @Override
    public JobExceptions handle(RestRequest request) {
      return exceptions(JobLookup.find(dispatcher, jobId(request)));
    }
  }

  /** {@code GET /jobs/:jobid/checkpoints}. */
  static final class Checkpoints extends DispatcherGet {
    Checkpoints(Dispatcher dispatcher) {
      super(dispatcher, "/jobs/:jobid/checkpoints");
    }

    @Override
    public CheckpointingStatistics handle(RestRequest request) {
      Dispatcher.Job job = JobLookup.find(dispatcher, jobId(request));
      return checkpoints(
          job.master().getCheckpointStatistics(), job.master().lastRestore().orElse(null));
    }
  }

  /** {@code PATCH /jobs/:jobid} (Flink's) or {@code POST /jobs/:jobid/cancel}: cancels the job. */
  static final class Cancel extends AbstractRestHandler {
    private final Dispatcher dispatcher;

    private Cancel(Dispatcher dispatcher, HttpMethod method, String path) {
      super(method, path);
      this.dispatcher = dispatcher;
    }

    static Cancel patch(Dispatcher dispatcher) {
      return new Cancel(dispatcher, HttpMethod.PATCH, "/jobs/:jobid");
    }

    static Cancel post(Dispatcher dispatcher) {
      return new Cancel(dispatcher, HttpMethod.POST, "/jobs/:jobid/cancel");
    }

    @Override
    public CancelJobResponse handle(RestRequest request) {
      Dispatcher.Job job = JobLookup.find(dispatcher, jobId(request));
      LOG.info(
          "Cancelling job '{}' ({}) on request of {}",
          job.name(),
          job.id(),
          request.remoteAddress());
      var unused = job.master().cancel();
      return new CancelJobResponse(job.id(), "CANCELLING");
    }
  }

  private static String jobId(RestRequest request) {
    return request.pathParameter("jobid");
  }

  static JobSummary summary(Dispatcher.Job job) {
    // Flink's fields: end-time is -1 while the job runs, duration runs until now until it ends.
    long end = job.master().endTimeMillis();
    long now = System.currentTimeMillis();
    Map<String, Long> metrics = null;
    String failure = null;
    var result = job.master().getJobExecutionResult();
    if (result.isDone()) {
      try {
        metrics = result.get().metrics();
      } catch (ExecutionException e) {
        Throwable cause = e.getCause();
        failure =
            cause instanceof JobExecutionException
                ? cause.getMessage()
                : WeirMessages.describe(cause);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    return new JobSummary(
        job.id(),
        job.name(),
        job.status().name(),
        job.startTime(),
        end,
        (end < 0 ? now : end) - job.startTime(),
        now,
        job.program().entryClass(),
        job.program().jarId(),
        metrics,
        failure);
  }

  /**
   * The exception history, newest first; its root exception is the failure that ended the newest
   * failed attempt: that attempt's first (the others, such as a consumer's that lost its producer,
   * followed from it).
   */
  static JobExceptions exceptions(Dispatcher.Job job) {
    return exceptions(job.gateway().exceptions());
  }

  /** The answer for {@code history}, newest first (as {@link ClusterGateway#exceptions()}). */
  static JobExceptions exceptions(List<ExceptionHistory.ExceptionEntry> history) {
    List<JobExceptions.Entry> entries = new ArrayList<>();
    JobExceptions.Entry root = null;
    int rootAttempt = history.isEmpty() ? -1 : history.get(0).attempt();
    for (ExceptionHistory.ExceptionEntry e : history) {
      JobExceptions.Entry entry =
          JobExceptions.Entry.of(
              e.exceptionName(),
              e.message(),
              e.stacktrace(),
              e.timestamp(),
              e.taskName(),
              e.location());
      entries.add(entry);
      if (e.attempt() == rootAttempt) {
        root = entry; // newest first: the last of the newest attempt is its first failure
      }
    }
    return JobExceptions.of(new JobExceptions.ExceptionHistory(entries, false), root);
  }

  /** One checkpoint's statistics as REST shows them, its critical path included. */
  static CheckpointingStatistics.Checkpoint checkpoint(CheckpointStatistics s) {
    CheckpointStatistics.CriticalPath path = s.criticalPath();
    return new CheckpointingStatistics.Checkpoint(
        s.checkpointId(),
        s.status().name(),
        s.unaligned(),
        s.triggerTimestamp(),
        s.endToEndDurationMillis(),
        s.stateSizeBytes(),
        s.checkpointedSizeBytes(),
        s.externalPath(),
        s.savepoint(),
        s.failureMessage(),
        s.subtasks().stream().map(t -> subtask(t, s.triggerTimestamp())).toList(),
        path == null
            ? null
            : new CheckpointingStatistics.CriticalPath(
                Integer.toString(path.vertexIndex()),
                path.taskName(),
                path.subtaskIndex(),
                path.phase().name().toLowerCase(java.util.Locale.ROOT),
                path.durationMillis(),
                path.description(),
                path.advice()));
  }

  private static CheckpointingStatistics.Subtask subtask(
      CheckpointStatistics.SubtaskCheckpointStatistics t, long triggerTimestamp) {
    return new CheckpointingStatistics.Subtask(
        t.taskName(),
        t.subtaskIndex(),
        t.startDelayMillis(),
        t.alignmentDurationMillis(),
        t.unaligned(),
        t.channelStateBytes(),
        t.syncDurationMillis(),
        t.asyncDurationMillis(),
        t.stateSizeBytes(),
        t.checkpointedSizeBytes(),
        Integer.toString(t.vertexIndex()),
        t.ackTimestamp(),
        t.endToEndDurationMillis(triggerTimestamp),
        t.filesWritten(),
        t.commit() == null
            ? null
            : new CheckpointingStatistics.Commit(
                t.commit().notifiedTimestamp(), t.commit().durationMillis(), t.commit().failure()));
  }

  static CheckpointingStatistics checkpoints(
      List<CheckpointStatistics> stats, JobMaster.Restore restore) {
    long completed = 0;
    long failed = 0;
    long inProgress = 0;
    List<CheckpointingStatistics.Checkpoint> history = new ArrayList<>();
    CheckpointingStatistics.Checkpoint latest = null;
    CheckpointingStatistics.Checkpoint latestSavepoint = null;
    CheckpointingStatistics.Checkpoint latestFailed = null;
    List<Long> sizes = new ArrayList<>();
    List<Long> stateSizes = new ArrayList<>();
    List<Long> durations = new ArrayList<>();
    for (CheckpointStatistics s : stats) {
      switch (s.status()) {
        case COMPLETED -> completed++;
        case FAILED -> failed++;
        case IN_PROGRESS -> inProgress++;
      }
      CheckpointingStatistics.Checkpoint checkpoint = checkpoint(s);
      history.add(checkpoint);
      if (s.status() == CheckpointStatistics.Status.COMPLETED && s.savepoint()) {
        latestSavepoint = checkpoint;
      } else if (s.status() == CheckpointStatistics.Status.COMPLETED) {
        latest = checkpoint;
        sizes.add(s.checkpointedSizeBytes());
        stateSizes.add(s.stateSizeBytes());
        durations.add(s.endToEndDurationMillis());
      } else if (s.status() == CheckpointStatistics.Status.FAILED) {
        latestFailed = checkpoint;
      }
    }
    return new CheckpointingStatistics(
        new CheckpointingStatistics.Counts(completed, failed, inProgress, stats.size()),
        new CheckpointingStatistics.Summary(
            CheckpointingStatistics.Figures.of(sizes),
            CheckpointingStatistics.Figures.of(stateSizes),
            CheckpointingStatistics.Figures.of(durations)),
        new CheckpointingStatistics.Latest(
            latest,
            latestSavepoint,
            latestFailed,
            restore == null
                ? null
                : new CheckpointingStatistics.Restored(
                    restore.checkpointId(),
                    restore.timestampMillis(),
                    restore.savepoint(),
                    restore.externalPath())),
        history);
  }
}

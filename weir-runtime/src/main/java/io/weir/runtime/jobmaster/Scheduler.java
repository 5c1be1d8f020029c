package io.weir.runtime.jobmaster;

import io.weir.api.JobStatus;
import io.weir.runtime.checkpoint.CheckpointCoordinator;
import io.weir.runtime.checkpoint.CompletedStop;
import io.weir.runtime.checkpoint.CorruptCheckpointException;
import io.weir.runtime.graph.JobGraph;
import io.weir.runtime.graph.JobVertex;
import io.weir.runtime.recovery.Failures;
import io.weir.runtime.recovery.RestartBackoffStrategy;
import io.weir.runtime.recovery.RestoreVerifier;
import io.weir.runtime.storage.CheckpointStorage;
import io.weir.runtime.storage.RetainedCheckpoint;
import io.weir.runtime.task.TaskState;
import io.weir.runtime.taskexecutor.ExecutionAttemptId;
import io.weir.runtime.taskexecutor.RunningAttempt;
import io.weir.runtime.taskexecutor.TaskDeploymentDescriptor;
import io.weir.runtime.taskexecutor.TaskExecutorGateway;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs the attempts of one job: deploys every subtask on the task executor with its share of the
 * checkpoint it restores (as handles, see {@link TaskDeploymentDescriptorFactory}; each task reads
 * its own state), and after a failure decides whether the job restarts (the failure's
 * classification, then the restart strategy) and from which checkpoint: the newest that verifies
 * ({@link RestorableCheckpoints}). A checkpoint that cannot be restored is marked so and skipped
 * without spending a restart attempt. A job taken over from a lost leader first adopts the subtasks
 * that leader left running ({@link TaskAdoption}).
 *
 * <p>Guarded by its own lock; tasks report from their threads, restarts run on the job master's
 * timer thread.
 */
final class Scheduler {

  private static final Logger LOG = LoggerFactory.getLogger(Scheduler.class);

  /** What the scheduler needs of its job master. */
  interface Host {
    /**
     * The job ended. Under the scheduler's lock.
     *
     * @param message for FAILED: what the job's exception says; otherwise null
     * @param cause for FAILED: the failure; otherwise null
     */
    void finishJob(Outcome outcome, String message, Throwable cause);
  }

  /** How a job ended. */
  enum Outcome {
    /** Every task finished. */
    FINISHED,
    /** It failed and does not restart. */
    FAILED,
    /** It was cancelled. */
    CANCELED
  }

  private final String jobId;
  private final JobGraph graph;
  private final CheckpointStorage storage;
  private final CheckpointCoordinator coordinator;
  private final RestartBackoffStrategy restartStrategy;
  private final RestorableCheckpoints restorable;
  private final TaskExecutorGateway taskExecutor;
  private final ScheduledExecutorService timer;
  private final Host host;
  private final TaskDeploymentDescriptorFactory deployments;
  private final TaskAdoption adoption;

  private volatile JobStatus status = JobStatus.CREATED;

  /** When the job first reached each status (Flink's {@code timestamps}), epoch milliseconds. */
  private final Map<JobStatus, Long> statusTimestamps =
      new ConcurrentHashMap<>(Map.of(JobStatus.CREATED, System.currentTimeMillis()));

  /** How one subtask of the current attempt ended. */
  record Ended(TaskState state, long endTimeMillis, JobMasterGateway.TaskMetrics metrics) {}

  /** The subtasks of the current attempt that ended; read without the lock. */
  private final Map<ExecutionAttemptId, Ended> endedTasks = new ConcurrentHashMap<>();

  /** When the current attempt was deployed (or adopted), epoch milliseconds. */
  private volatile long attemptStartMillis;

  /** This attempt's subtasks; volatile so the coordinator reads it without the lock. */
  private volatile List<ExecutionAttemptId> deployed = List.of();

  /** Counters of the subtasks of this attempt that ended. */
  private final List<JobMasterGateway.TaskMetrics> metrics = new ArrayList<>();

  private int attempt;

  /** The number of the first attempt this scheduler deploys; restarts never go below it. */
  private final int firstAttempt;

  /** Whether the first attempt adopts the subtasks a lost leader left running. */
  private final boolean adoptRunning;

  private Throwable failure;
  private boolean cancelRequested;
  private int terminatedTasks;

  /** Volatile, so that metrics read it without waiting for a deployment under the lock. */
  private volatile int restarts;

  private int endedAttempt = -1;
  private long lastRestoredCheckpoint = -1;

  /** The restore of the newest attempt that restored one, or null. */
  private volatile JobMaster.Restore lastRestore;

  private boolean ended;

  /** When the job last began running ({@link System#nanoTime()}). */
  private volatile long runningSinceNanos;

  Scheduler(
      String jobId,
      JobGraph graph,
      CheckpointStorage storage,
      CheckpointCoordinator coordinator,
      RestartBackoffStrategy restartStrategy,
      RestoreVerifier verifier,
      RetainedCheckpoint initialRestore,
      TaskExecutorGateway taskExecutor,
      ScheduledExecutorService timer,
      int firstAttempt,
      boolean adoptRunning,
      Host host) {
    this.jobId = jobId;
    this.attempt = firstAttempt;
    this.firstAttempt = firstAttempt;
    this.adoptRunning = adoptRunning;
    this.graph = graph;
    this.storage = storage;
    this.coordinator = coordinator;
    this.restartStrategy = restartStrategy;
    this.restorable =
        new RestorableCheckpoints(graph.jobName(), coordinator, storage, verifier, initialRestore);
    this.taskExecutor = taskExecutor;
    this.timer = timer;
    this.host = host;
    this.deployments = new TaskDeploymentDescriptorFactory(jobId, graph);
    this.adoption = new TaskAdoption(jobId, graph, coordinator, taskExecutor, timer);
  }

  JobStatus status() {
    return status;
  }

  /** The job is in {@code next} from now on. */
  private void enter(JobStatus next) {
    status = next;
    statusTimestamps.putIfAbsent(next, System.currentTimeMillis());
  }

  /** When the job first reached each status it reached, epoch milliseconds. */
  Map<JobStatus, Long> statusTimestamps() {
    return Map.copyOf(statusTimestamps);
  }

  /** The subtasks of the current attempt that ended, and how. */
  Map<ExecutionAttemptId, Ended> endedTasks() {
    return Map.copyOf(endedTasks);
  }

  /** When the current attempt was deployed, epoch milliseconds; 0 before the first. */
  long attemptStartMillis() {
    return attemptStartMillis;
  }

  /** The subtasks of the current attempt. */
  List<ExecutionAttemptId> deployed() {
    return deployed;
  }

  int restarts() {
    return restarts;
  }

  synchronized long lastRestoredCheckpoint() {
    return lastRestoredCheckpoint;
  }

  /** The restore of the newest attempt that restored a checkpoint, or null. */
  JobMaster.Restore lastRestore() {
    return lastRestore;
  }

  /**
   * When an attempt was last deployed from a checkpoint or savepoint, in epoch milliseconds
   * (Flink's {@code lastCheckpointRestoreTimestamp}); -1 before any was.
   */
  long lastRestoreTimestamp() {
    JobMaster.Restore restore = lastRestore;
    return restore == null ? -1 : restore.timestampMillis();
  }

  /**
   * How long the job has been running since it last began to (Flink's {@code uptime}), in
   * milliseconds: 0 while it is not running, -1 once it ended.
   */
  long uptimeMillis(long nowNanos) {
    JobStatus now = status;
    if (now.isGloballyTerminalState() || now == JobStatus.SUSPENDED) {
      return -1;
    }
    return now == JobStatus.RUNNING ? (nowNanos - runningSinceNanos) / 1_000_000 : 0;
  }

  /** The job runs (again) from now on. */
  private void running() {
    runningSinceNanos = System.nanoTime();
    enter(JobStatus.RUNNING);
  }

  /** Counters of the last attempt's subtasks that ended. */
  synchronized List<JobMasterGateway.TaskMetrics> metrics() {
    return List.copyOf(metrics);
  }

  /**
   * Starts the job. One taken over from a lost leader that may have left its subtasks running first
   * asks the task executors for them and adopts them (see {@link TaskAdoption}); otherwise, or when
   * none runs, the first attempt is deployed from the checkpoints (see {@link
   * RestorableCheckpoints#forFirstAttempt}).
   */
  synchronized void start() {
    if (!adoptRunning) {
      try {
        deployFirstAttempt();
      } catch (IOException e) {
        notDeployed(e);
      }
      return;
    }
    enter(JobStatus.RECONCILING);
    adoption.askForRunning(this::offered);
  }

  /**
   * The subtasks a lost leader left running are known: they are adopted as the current attempt,
   * nothing restarts, and the coordinator takes over once every task executor confirmed (see {@link
   * #adoptionAnswered}). With none running, the first attempt is deployed from the checkpoints.
   */
  private synchronized void offered(RunningAttempt offer, Throwable error) {
    if (ended) {
      return; // suspended meanwhile: the tasks are left to the next leader
    }
    List<ExecutionAttemptId> subtasks = adoption.subtasksToAdopt(offer, error);
    if (subtasks.isEmpty()) {
      if (cancelRequested) {
        end(Outcome.CANCELED, null, null);
        return;
      }
      try {
        deployFirstAttempt();
      } catch (IOException e) {
        notDeployed(e);
      } catch (RuntimeException e) {
        failure = e;
        end(Outcome.FAILED, "Job '" + graph.jobName() + "' could not start: " + e.getMessage(), e);
      }
      return;
    }
    attempt = offer.attempt();
    begin(subtasks);
    adoption.adopt(offer, subtasks, this::adoptionAnswered);
  }

  /**
   * The task executors answered the adoption of attempt {@code adopting}: with every subtask there
   * and confirmed, the coordinator takes over and the job goes on without a restart; otherwise the
   * attempt fails and the job recovers from its newest checkpoint, which costs no restart of the
   * restart strategy (see {@link #onAttemptEnded}).
   */
  private synchronized void adoptionAnswered(
      int adopting, TaskAdoption.AdoptionFailedException refused) {
    if (ended || adopting != attempt || failure != null) {
      return;
    }
    if (cancelRequested) {
      deployed.forEach(taskExecutor::cancelTask); // cancel() came while the adoption was under way
      return;
    }
    if (refused != null) {
      failAttempt(attempt, refused, false);
      return;
    }
    adoption.adopted(attempt, deployed.size());
  }

  /** Deploys every subtask, restoring {@code restoreFrom} (verified), or fresh when null. */
  private void deploy(RetainedCheckpoint restoreFrom) {
    long restoredId = restoreFrom == null ? -1 : restoreFrom.checkpoint().checkpointId();
    lastRestoredCheckpoint = restoredId;
    if (restoreFrom != null) {
      lastRestore =
          new JobMaster.Restore(
              restoredId,
              System.currentTimeMillis(),
              restoreFrom.externalPointer(),
              restoreFrom.checkpoint().savepoint());
    }
    List<TaskDeploymentDescriptor> descriptors =
        deployments.create(
            attempt, restoreFrom, restoreFrom != null && restorable.claims(restoreFrom));
    // Before any task runs: a task may finish, or a fast bounded source ask for its final
    // checkpoint (remembered until the coordinator starts), at once.
    begin(descriptors.stream().map(TaskDeploymentDescriptor::id).toList());
    LOG.info(
        "Job '{}' ({}) attempt {} starts {} tasks{}",
        graph.jobName(),
        jobId,
        attempt,
        descriptors.size(),
        restoredId >= 0 ? " from checkpoint " + restoredId : "");
    taskExecutor.submitTasks(descriptors);
    // Only once the task executor knows the subtasks: a trigger before would find no task.
    coordinator.start();
  }

  /**
   * {@code subtasks}, every subtask of the attempt {@link #attempt}, are the current attempt, and
   * the job runs: the coordinator waits for them from now on.
   */
  private void begin(List<ExecutionAttemptId> subtasks) {
    terminatedTasks = 0;
    metrics.clear();
    endedTasks.clear();
    attemptStartMillis = System.currentTimeMillis();
    deployed = List.copyOf(subtasks);
    Set<CheckpointCoordinator.TaskKey> keys = new HashSet<>();
    for (ExecutionAttemptId task : subtasks) {
      keys.add(new CheckpointCoordinator.TaskKey(task.vertex(), task.subtask()));
    }
    coordinator.setTasks(keys);
    running();
  }

  /** A subtask reached a terminal state. */
  synchronized void taskTerminated(
      ExecutionAttemptId task,
      TaskState state,
      Throwable cause,
      JobMasterGateway.TaskMetrics taskMetrics) {
    if (task.attempt() != attempt || status == JobStatus.SUSPENDED) {
      return; // a task of an attempt already given up, or of a job this master no longer leads
    }
    terminatedTasks++;
    metrics.add(taskMetrics);
    endedTasks.put(task, new Ended(state, System.currentTimeMillis(), taskMetrics));
    if (state == TaskState.FINISHED) {
      coordinator.taskFinished(new CheckpointCoordinator.TaskKey(task.vertex(), task.subtask()));
    }
    if (state == TaskState.FAILED && failure == null && !cancelRequested) {
      failAttempt(task.attempt(), cause, true);
    } else if (state == TaskState.CANCELED && failure == null && !cancelRequested) {
      // Nobody here asked for it: its TaskManager gave the subtask up (a leader lost for longer
      // than it keeps tasks for adoption). The attempt has not finished: it restarts from its
      // newest checkpoint, or every record since that checkpoint would be lost to the sinks.
      failAttempt(
          task.attempt(),
          new IllegalStateException(
              "Subtask "
                  + subtaskName(task)
                  + " of attempt "
                  + task.attempt()
                  + " was cancelled on its TaskManager without the job master asking"
                  + (cause == null ? "" : ": " + cause.getMessage()),
              cause),
          false);
    }
    if (terminatedTasks == deployed.size()) {
      onAttemptEnded();
    }
  }

  /** {@code 'Count -> Files' (2/2)}: a subtask as Flink's messages name it. */
  private String subtaskName(ExecutionAttemptId task) {
    JobVertex vertex = graph.vertices().get(task.vertex());
    return "'"
        + vertex.getName()
        + "' ("
        + (task.subtask() + 1)
        + "/"
        + vertex.getParallelism()
        + ")";
  }

  /** Fails the current attempt (a task failed, or the coordinator gave up). */
  synchronized void failCurrentAttempt(Throwable cause) {
    failAttempt(attempt, cause, false);
  }

  /**
   * Fails the attempt: every task is cancelled; the restart strategy decides next. {@code ofATask}:
   * the cause is a subtask's failure, which its task executor keeps already.
   */
  private void failAttempt(int failedAttempt, Throwable cause, boolean ofATask) {
    if (failedAttempt != attempt || failure != null || ended) {
      return;
    }
    failure = cause;
    if (!ofATask) {
      taskExecutor.attemptFailed(attempt, cause);
    }
    enter(JobStatus.FAILING);
    long corrupt = CorruptCheckpointException.findIn(cause);
    if (corrupt >= 0) {
      restorable.markUnrestorable(corrupt, cause.getMessage());
    }
    LOG.warn("Job '{}' attempt {} fails: {}", graph.jobName(), attempt, cause.getMessage());
    coordinator.stop();
    for (ExecutionAttemptId task : deployed) {
      taskExecutor.cancelTask(task);
    }
    if (terminatedTasks == deployed.size()) {
      onAttemptEnded();
    }
  }

  private void onAttemptEnded() {
    if (endedAttempt == attempt) {
      return; // both the failing task and the last one to stop report the end
    }
    endedAttempt = attempt;
    if (failure != null && !cancelRequested) {
      CompletedStop stop = coordinator.completedStop();
      if (stop != null) {
        endAfterStop(stop, "failed before every task had ended: " + failure.getMessage(), failure);
        return;
      }
      Throwable nonRecoverable = Failures.findNonRecoverable(failure);
      if (nonRecoverable != null) {
        LOG.warn(
            "Job '{}' does not restart: the failure would recur on every attempt ({})",
            graph.jobName(),
            nonRecoverable.getMessage());
        end(
            Outcome.FAILED,
            jobLabel()
                + " failed and will not restart, since the failure would recur on every"
                + " attempt: "
                + failure.getMessage(),
            failure);
        return;
      }
      if (failure instanceof TaskAdoption.AdoptionFailedException) {
        // Not a failure of the job: the running subtasks could not be kept, so it restores.
        enter(JobStatus.RESTARTING);
        timer.execute(this::restart);
        return;
      }
      if (lastRestoredCheckpoint >= 0
          && CorruptCheckpointException.findIn(failure) == lastRestoredCheckpoint) {
        // The attempt failed restoring its checkpoint: falling back to an older one is not a
        // restart the strategy counts.
        enter(JobStatus.RESTARTING);
        LOG.info(
            "Job '{}' falls back from checkpoint {}, which cannot be restored",
            graph.jobName(),
            lastRestoredCheckpoint);
        timer.execute(this::restart);
        return;
      }
      restartOrFail();
      return;
    }
    if (cancelRequested) {
      end(Outcome.CANCELED, null, null);
      return;
    }
    end(Outcome.FINISHED, null, null);
  }

  /** "Job 'name' (id)", as the job's failure messages name it. */
  private String jobLabel() {
    return "Job '" + graph.jobName() + "' (" + jobId + ")";
  }

  /** After {@link #failure}: restarts if the restart strategy allows, else the job fails. */
  private void restartOrFail() {
    restartStrategy.notifyFailure(System.currentTimeMillis());
    if (restartStrategy.canRestart()) {
      enter(JobStatus.RESTARTING);
      long delay = restartStrategy.getBackoffMillis();
      LOG.info(
          "Job '{}' restarts in {} ms ({})", graph.jobName(), delay, restartStrategy.describe());
      timer.schedule(this::restart, delay, TimeUnit.MILLISECONDS);
      return;
    }
    end(
        Outcome.FAILED,
        jobLabel()
            + " failed"
            + (restarts > 0 || deployments.checkpointingEnabled()
                ? " and will not restart (" + restartStrategy.describe() + ")"
                : "")
            + ": "
            + failure.getMessage(),
        failure);
  }

  /**
   * No attempt was deployed: the checkpoint to restore could not be verified, since a read failed
   * (a timeout, not a damaged file; see {@link RestorableCheckpoints#newest}). A failure like any
   * of an attempt's: the restart strategy decides whether the job tries again, and it tries the
   * same checkpoint.
   */
  /**
   * Deploys the first attempt from the checkpoints, unless the job's stop-with-savepoint completed
   * under a job master this one took the job over from: then it ends (see {@link #endAfterStop}).
   */
  private void deployFirstAttempt() throws IOException {
    CompletedStop stop = coordinator.completedStop();
    if (stop != null) {
      endAfterStop(
          stop,
          "its job master was lost before every task had ended",
          new IllegalStateException("the job master was lost after the job's stop completed"));
      return;
    }
    deploy(restorable.forFirstAttempt());
  }

  /**
   * Ends the job whose stop-with-savepoint completed and which then {@code what}: its tasks were
   * told to commit the savepoint's side effects, so restoring an older checkpoint would commit its
   * records a second time. It fails instead, naming the savepoint to resume from (as Flink since
   * FLINK-26783).
   */
  private void endAfterStop(CompletedStop stop, String what, Throwable cause) {
    LOG.warn(
        "Job '{}' does not restart: its stop-with-savepoint {} completed, and it then {}",
        graph.jobName(),
        stop.savepointId(),
        what);
    if (failure == null) {
      failure = cause;
    }
    end(
        Outcome.FAILED,
        jobLabel()
            + " was stopped with savepoint "
            + stop.savepointId()
            + " at "
            + stop.path()
            + ", which is complete, but "
            + what
            + ". It does not restart from an older checkpoint, which would commit the"
            + " savepoint's records a second time: resume the job from the savepoint (weir run"
            + " -s "
            + stop.path()
            + " ...), which commits what its sinks had not",
        cause);
  }

  private void notDeployed(IOException cause) {
    failure = cause;
    LOG.warn(
        "Job '{}' attempt {} could not start: {}", graph.jobName(), attempt, cause.getMessage());
    restartOrFail();
  }

  /**
   * Redeploys every task from the newest checkpoint that verifies intact (see {@link
   * RestoreVerifier}): the job's retained checkpoints newest first, then the one it was started
   * from. A checkpoint that does not verify is marked unrestorable and skipped, which costs no
   * restart attempt. If checkpoints exist but none can be restored, the job fails: starting from
   * empty state would break exactly-once silently. If a checkpoint could not be read (not damaged,
   * the read failed), this restart counts as a failed attempt and the next tries it again.
   */
  private synchronized void restart() {
    if (ended) {
      return;
    }
    if (cancelRequested) {
      end(Outcome.CANCELED, null, null);
      return;
    }
    // Above the adopted attempt, and in this leader's range of attempt numbers.
    attempt = Math.max(attempt + 1, firstAttempt);
    restarts++;
    Throwable previousFailure = failure;
    failure = null;
    try {
      // A checkpoint whose metadata was being written as the attempt failed is retained first.
      coordinator.awaitCommits();
      RetainedCheckpoint restoreFrom = restorable.newest();
      deploy(restoreFrom);
      if (restoreFrom != null && restoreFrom.storage() == storage) {
        // Restored from the job's own storage: what the failed attempts left behind can go.
        coordinator.discardOrphanedState();
      }
    } catch (IOException e) {
      notDeployed(e);
    } catch (RuntimeException e) {
      failure = e;
      if (previousFailure != null) {
        e.addSuppressed(previousFailure);
      }
      end(Outcome.FAILED, "Job '" + graph.jobName() + "' could not restart: " + e.getMessage(), e);
    }
  }

  /**
   * Stops acting for the job without ending it (Flink's suspend): this job master no longer leads.
   * Nothing is cancelled, retained or deleted; what reports arrive later are dropped. The job's
   * next leader recovers it.
   */
  synchronized void suspend() {
    if (ended) {
      return;
    }
    ended = true;
    enter(JobStatus.SUSPENDED);
    coordinator.suspend();
  }

  /** Cancels the job; its end is reported through the host once every task stopped. */
  synchronized void cancel() {
    if (ended || cancelRequested) {
      return;
    }
    cancelRequested = true;
    enter(JobStatus.CANCELLING);
    coordinator.stop();
    for (ExecutionAttemptId task : deployed) {
      taskExecutor.cancelTask(task);
    }
    if (terminatedTasks == deployed.size() && failure != null) {
      // Waiting for a restart: nothing runs, end now.
      onAttemptEnded();
    }
    // While reconciling, the offer decides: what was offered is adopted and then cancelled.
  }

  private void end(Outcome outcome, String message, Throwable cause) {
    if (ended) {
      return;
    }
    ended = true;
    statusTimestamps.putIfAbsent(
        switch (outcome) {
          case FINISHED -> JobStatus.FINISHED;
          case FAILED -> JobStatus.FAILED;
          case CANCELED -> JobStatus.CANCELED;
        },
        System.currentTimeMillis());
    host.finishJob(outcome, message, cause);
  }
}

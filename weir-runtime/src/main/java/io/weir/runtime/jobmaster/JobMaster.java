package io.weir.runtime.jobmaster;

import io.weir.api.CheckpointConfig;
import io.weir.api.CheckpointStatistics;
import io.weir.api.ExternalizedCheckpointRetention;
import io.weir.api.JobClient;
import io.weir.api.JobExecutionException;
import io.weir.api.JobExecutionResult;
import io.weir.api.JobID;
import io.weir.api.JobStatus;
import io.weir.api.RecoveryClaimMode;
import io.weir.api.config.CheckpointingOptions;
import io.weir.api.config.Configuration;
import io.weir.api.config.KnownKeys;
import io.weir.runtime.checkpoint.CheckpointCoordinator;
import io.weir.runtime.checkpoint.CheckpointCoordinatorContext;
import io.weir.runtime.checkpoint.CheckpointOptions;
import io.weir.runtime.checkpoint.CheckpointRecoveryFactory;
import io.weir.runtime.checkpoint.CheckpointSettings;
import io.weir.runtime.checkpoint.CheckpointStatsCounts;
import io.weir.runtime.checkpoint.CompletedCheckpoint;
import io.weir.runtime.checkpoint.OperatorSubtaskState;
import io.weir.runtime.classloading.TemporaryClassLoaderContext;
import io.weir.runtime.graph.JobGraph;
import io.weir.runtime.graph.JobVertex;
import io.weir.runtime.graph.StreamNode;
import io.weir.runtime.metrics.JobMetrics;
import io.weir.runtime.recovery.RestartStrategies;
import io.weir.runtime.recovery.RestoreVerifier;
import io.weir.runtime.state.KeyedStateBackendFactory;
import io.weir.runtime.state.KeyedStateBackends;
import io.weir.runtime.storage.CheckpointStorage;
import io.weir.runtime.storage.CheckpointStorages;
import io.weir.runtime.storage.FileSystems;
import io.weir.runtime.storage.RetainedCheckpoint;
import io.weir.runtime.task.TaskState;
import io.weir.runtime.taskexecutor.ExecutionAttemptId;
import io.weir.runtime.taskexecutor.TaskExecutorGateway;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One job, from submission to its end: checks the job before anything runs (settings, the
 * checkpoint to resume from), owns the checkpoint coordinator, hands the attempts to its {@link
 * Scheduler}, receives what task executors report ({@link JobMasterGateway}), and decides the job's
 * result and what happens to its checkpoints when it ends. The user's {@link JobClient}; its
 * savepoints go through a {@link SavepointTrigger}.
 *
 * <p>Talks to task executors only through {@link TaskExecutorGateway}, so local execution and a
 * cluster of processes run the same job master.
 */
public final class JobMaster implements JobClient, JobMasterGateway {

  private static final Logger LOG = LoggerFactory.getLogger(JobMaster.class);

  private final JobID jobId;
  private final Setup setup;
  private final JobGraph graph;

  /** The job's classes: the context class loader of the threads that run its code here. */
  private final ClassLoader userClassLoader;

  private final long startNanos = System.nanoTime();
  private final CompletableFuture<JobExecutionResult> result = new CompletableFuture<>();
  private final CompletableFuture<Void> terminated = new CompletableFuture<>();
  private final CheckpointStorage storage;
  private final CheckpointCoordinator coordinator;
  private final boolean checkpointingEnabled;
  private final Map<String, String> operatorNames = new HashMap<>();
  private final RestoreVerifier verifier;
  private final RetainedCheckpoint initialRestore;

  /** Coordinator timers and restarts; deletes of checkpoint files. */
  private final JobMasterThreads threads;

  private final Scheduler scheduler;
  private final SavepointTrigger savepoints;
  private final TaskExecutorGateway taskExecutor;
  private final SubtaskSampling sampling;

  /** Set when the job ended, just before its result completes. */
  private volatile JobStatus terminalStatus;

  /**
   * Set when this job master stopped acting for the job because it no longer leads: from then on it
   * triggers, notifies, cancels and deletes nothing.
   */
  private volatile boolean suspended;

  /** When the scheduler ended the job (epoch milliseconds), or -1 while it has not. */
  private volatile long endTimeMillis = -1;

  private volatile JobEndRecorder endRecorder = JobEndRecorder.NONE;

  /**
   * Checks {@code graph} and prepares its first attempt; {@link #start()} deploys it.
   *
   * @param taskExecutors makes the gateway of the task executor that runs the job's subtasks, given
   *     this job master's gateway (whom it reports to)
   * @throws IllegalArgumentException naming the setting, path or checkpoint at fault
   */
  public JobMaster(JobGraph graph, Function<JobMasterGateway, TaskExecutorGateway> taskExecutors) {
    this(graph, Setup.newJob(), taskExecutors);
  }

  /**
   * What a job master is given beyond its graph (Flink's job master services).
   *
   * @param jobId the job's id: a new one, or the one it had under a previous leader
   * @param checkpointRecovery makes the job's checkpoint id counter and completed-checkpoint store;
   *     a store that recovers checkpoints makes the first attempt restore the newest of them
   * @param firstAttempt the number of the first attempt: above every attempt of the job that an
   *     earlier leader deployed, so that no {@link ExecutionAttemptId} repeats
   * @param adoptRunningTasks whether the job was taken over from a lost leader whose tasks may
   *     still run: the job master asks the task executors for them and adopts them instead of
   *     deploying an attempt (see {@link TaskExecutorGateway#runningAttempt})
   */
  public record Setup(
      JobID jobId,
      CheckpointRecoveryFactory checkpointRecovery,
      int firstAttempt,
      boolean adoptRunningTasks) {

    /** A job that adopts no running tasks. */
    public Setup(JobID jobId, CheckpointRecoveryFactory checkpointRecovery, int firstAttempt) {
      this(jobId, checkpointRecovery, firstAttempt, false);
    }

    /** A new job: a new id, checkpoints kept in memory, attempt 0 first. */
    public static Setup newJob() {
      return new Setup(JobID.generate(), CheckpointRecoveryFactory.STANDALONE, 0);
    }
  }

  /**
   * As {@link #JobMaster(JobGraph, Function)}, with the job's id, checkpoint recovery and first
   * attempt given by {@code setup}. The job's classes are those of the context class loader of the
   * calling thread, as in local execution, where they are on the class path.
   */
  public JobMaster(
      JobGraph graph, Setup setup, Function<JobMasterGateway, TaskExecutorGateway> taskExecutors) {
    this(graph, setup, Thread.currentThread().getContextClassLoader(), taskExecutors);
  }

  /**
   * As {@link #JobMaster(JobGraph, Setup, Function)}, for a job whose classes {@code
   * userClassLoader} loads (a JobManager's class loader over the job's jar): the context class
   * loader of the job master's threads, and of the caller's while this constructor and {@link
   * #start()} read checkpoints and create the sources' splits.
   */
  public JobMaster(
      JobGraph graph,
      Setup setup,
      ClassLoader userClassLoader,
      Function<JobMasterGateway, TaskExecutorGateway> taskExecutors) {
    this.graph = graph;
    this.setup = setup;
    this.jobId = setup.jobId();
    this.userClassLoader = userClassLoader;
    try (var ignored = TemporaryClassLoaderContext.of(userClassLoader)) {
      Configuration conf = graph.configuration();
      KnownKeys.check(conf);
      for (String warning : KnownKeys.warnings(conf)) {
        LOG.warn("Job '{}': {}", graph.jobName(), warning);
      }
      // An unknown storage scheme, or a store that cannot be reached, is named first: it is the
      // thing to fix.
      conf.getOptional(CheckpointingOptions.CHECKPOINTS_DIRECTORY)
          .ifPresent(dir -> FileSystems.checkAccess(FileSystems.toUri(dir), conf));
      CheckpointConfig.validate(conf);
      boolean checkpointingEnabled = CheckpointConfig.isCheckpointingEnabled(conf);
      for (JobVertex vertex : graph.vertices()) {
        for (StreamNode node : vertex.getChain()) {
          operatorNames.put(node.getOperatorId(), node.getName());
        }
      }
      KeyedStateBackendFactory backend =
          KeyedStateBackends.factory(conf.get(CheckpointingOptions.STATE_BACKEND));
      backend.validate(conf);
      this.verifier = new RestoreVerifier(operatorNames, backend);
      InitialRestore resume = new InitialRestore(graph, operatorNames, verifier);
      this.initialRestore = resume.load(conf);
      // Without periodic checkpoints the job still takes savepoints, whose state goes to the
      // savepoint's own directory: a job manager storage serves them and creates nothing on disk.
      this.storage =
          checkpointingEnabled
              ? CheckpointStorages.create(conf, jobId.value())
              : CheckpointStorages.forSavepointsOnly(conf);
      this.threads = new JobMasterThreads(graph.jobName(), userClassLoader);
      this.checkpointingEnabled = checkpointingEnabled;
      // Always there, as Flink's: with checkpointing off it triggers nothing by itself and takes
      // the savepoints asked for.
      this.coordinator = createCoordinator(conf);
      if (checkpointingEnabled) {
        resume.warnAboutGeneratedIds();
      }
      if (checkpointingEnabled
          && initialRestore != null
          && conf.get(CheckpointingOptions.RECOVERY_CLAIM_MODE) == RecoveryClaimMode.CLAIM) {
        InitialRestore.claim(initialRestore, coordinator);
      }
      this.savepoints =
          new SavepointTrigger(
              jobId,
              graph,
              coordinator,
              () -> terminalStatus,
              result,
              this::failCurrentAttemptLater);
      this.taskExecutor = taskExecutors.apply(this);
      this.scheduler =
          new Scheduler(
              jobId.value(),
              graph,
              storage,
              coordinator,
              RestartStrategies.fromConfiguration(conf, new Random()),
              verifier,
              initialRestore,
              taskExecutor,
              threads.timer(),
              setup.firstAttempt(),
              setup.adoptRunningTasks(),
              this::finishJob);
      this.sampling = new SubtaskSampling(jobId.value(), graph.jobName(), scheduler, taskExecutor);
    }
  }

  /** Deploys the first attempt. */
  public void start() {
    try (var ignored = TemporaryClassLoaderContext.of(userClassLoader)) {
      scheduler.start();
    } catch (RuntimeException e) {
      shutdownThreads();
      throw e;
    }
  }

  private CheckpointCoordinator createCoordinator(Configuration conf) {
    CheckpointConfig cc = new CheckpointConfig(conf);
    CheckpointSettings settings =
        new CheckpointSettings(
            cc.getCheckpointInterval().toMillis(),
            cc.getCheckpointTimeout().toMillis(),
            cc.getMinPauseBetweenCheckpoints().toMillis(),
            cc.getMaxConcurrentCheckpoints(),
            cc.getTolerableCheckpointFailureNumber(),
            cc.getNumRetainedCheckpoints(),
            conf.get(CheckpointingOptions.CHECKPOINTS_HISTORY_SIZE));
    List<CheckpointCoordinator.OperatorInfo> operators = new ArrayList<>();
    for (JobVertex vertex : graph.vertices()) {
      for (StreamNode node : vertex.getChain()) {
        operators.add(
            new CheckpointCoordinator.OperatorInfo(
                node.getOperatorId(),
                node.getName(),
                vertex.getIndex(),
                vertex.getParallelism(),
                vertex.getMaxParallelism()));
      }
    }
    long lastId = initialRestore == null ? 0 : initialRestore.checkpoint().checkpointId();
    CheckpointRecoveryFactory recovery = setup.checkpointRecovery();
    CheckpointCoordinator created =
        new CheckpointCoordinator(
            jobId.value(),
            settings,
            operators,
            storage,
            new CoordinatorContext(),
            recovery.createCheckpointIdCounter(jobId.value(), lastId),
            recovery.createCompletedCheckpointStore(
                jobId.value(), settings.numRetained(), storage::externalPointer, conf));
    created.setCheckpointAlignment(
        TaskDeploymentDescriptorFactory.checkpointingSettings(graph, true).alignment());
    String historyPointer = historyPointer(created);
    if (historyPointer != null) {
      created.restoreHistory(historyPointer);
    }
    return created;
  }

  /**
   * Where the history of the job's earlier checkpoints lies: beside the newest checkpoint the
   * completed-checkpoint store recovered (a failover of the JobManager), else beside the checkpoint
   * or savepoint the job resumes from; null for a new job.
   */
  private String historyPointer(CheckpointCoordinator coordinator) {
    CompletedCheckpoint recovered = coordinator.latestCompleted();
    if (recovered != null) {
      try {
        return storage.externalPointer(recovered.checkpointId());
      } catch (UnsupportedOperationException e) {
        return null; // kept in the JobManager's memory: no file beside it
      }
    }
    return initialRestore == null ? null : initialRestore.externalPointer();
  }

  /** The coordinator's view of the world: the timer thread and this attempt's subtasks. */
  private final class CoordinatorContext implements CheckpointCoordinatorContext {
    @Override
    public long currentTimeMillis() {
      return System.currentTimeMillis();
    }

    @Override
    public Runnable schedule(Runnable action, long delayMillis) {
      return threads.schedule(action, delayMillis);
    }

    @Override
    public void triggerSources(long checkpointId, long timestamp, CheckpointOptions options) {
      if (suspended) {
        return;
      }
      for (ExecutionAttemptId task : scheduler.deployed()) {
        if (graph.vertices().get(task.vertex()).isSource()) {
          taskExecutor.triggerCheckpoint(task, checkpointId, timestamp, options);
        }
      }
    }

    @Override
    public void notifyComplete(long checkpointId) {
      if (suspended) {
        return; // a deposed leader makes no sink commit
      }
      boolean isFinal = coordinator.isFinal(checkpointId);
      for (ExecutionAttemptId task : scheduler.deployed()) {
        taskExecutor.notifyCheckpointComplete(task, checkpointId, isFinal);
      }
    }

    @Override
    public void notifyAborted(long checkpointId) {
      if (suspended) {
        return;
      }
      for (ExecutionAttemptId task : scheduler.deployed()) {
        taskExecutor.notifyCheckpointAborted(task, checkpointId);
      }
    }

    @Override
    public void failJob(Throwable cause) {
      failCurrentAttemptLater(cause);
    }

    @Override
    public String locationOf(CheckpointCoordinator.TaskKey task) {
      for (ExecutionAttemptId id : scheduler.deployed()) {
        if (id.vertex() == task.vertex() && id.subtask() == task.subtask()) {
          return taskExecutor.location(id);
        }
      }
      return null;
    }

    @Override
    public Executor ioExecutor() {
      return command -> {
        if (!suspended) { // a deposed leader deletes no file: the next leader owns them
          threads.io(command);
        }
      };
    }
  }

  /** Fails the current attempt, on the timer thread: never inside a call of the coordinator. */
  private void failCurrentAttemptLater(Throwable cause) {
    threads.timer().execute(() -> scheduler.failCurrentAttempt(cause));
  }

  // ------------------------------------------------------------------ what task executors report

  private static CheckpointCoordinator.TaskKey key(ExecutionAttemptId task) {
    return new CheckpointCoordinator.TaskKey(task.vertex(), task.subtask());
  }

  @Override
  public void acknowledgeCheckpoint(
      ExecutionAttemptId task,
      long checkpointId,
      Map<String, OperatorSubtaskState> states,
      CheckpointStatistics.SubtaskCheckpointStatistics statistics) {
    coordinator.acknowledge(key(task), checkpointId, states, statistics);
  }

  @Override
  public void declineCheckpoint(ExecutionAttemptId task, long checkpointId, Throwable cause) {
    coordinator.decline(key(task), checkpointId, cause);
  }

  @Override
  public void reachedEndOfInput(ExecutionAttemptId task) {
    coordinator.reachedEndOfInput(key(task));
  }

  @Override
  public void sinkCommitted(
      ExecutionAttemptId task, long checkpointId, CheckpointStatistics.SinkCommit commit) {
    coordinator.sinkCommitted(key(task), checkpointId, commit);
  }

  @Override
  public void taskTerminated(
      ExecutionAttemptId task, TaskState state, Throwable failure, TaskMetrics metrics) {
    scheduler.taskTerminated(task, state, failure, metrics);
  }

  // ------------------------------------------------------------------ the job's end

  /** The scheduler ended the job: checkpoints are kept or deleted, the result completes. */
  private void finishJob(Scheduler.Outcome outcome, String message, Throwable cause) {
    if (result.isDone()) {
      return;
    }
    endTimeMillis = System.currentTimeMillis();
    coordinator.stop();
    // A checkpoint whose metadata was being written is retained before the retention policy and
    // the deletion of orphans look at what is retained.
    coordinator.awaitCommits();
    Duration runtime = Duration.ofNanos(System.nanoTime() - startNanos);
    JobStatus end =
        switch (outcome) {
          case FINISHED -> JobStatus.FINISHED;
          case FAILED -> JobStatus.FAILED;
          case CANCELED -> JobStatus.CANCELED;
        };
    JobExecutionException failure =
        switch (outcome) {
          case FINISHED -> null;
          case FAILED -> new JobExecutionException(jobId, message, cause);
          case CANCELED ->
              new JobExecutionException(
                  jobId, "Job '" + graph.jobName() + "' (" + jobId + ") was cancelled", null);
        };
    if (recordEnd(end, failure)) {
      if (retentionDeletes(end)) {
        coordinator.discardRetained();
      }
      // Every task has ended and waited for its uploads: files of checkpoints that were aborted
      // as the job ended (uploads no acknowledgement named) are orphans now.
      coordinator.discardOrphanedState(true);
    }
    threads.drainIo();
    shutdownThreads();
    taskExecutor.releaseJob(jobId.value());
    terminalStatus = end;
    if (failure == null) {
      result.complete(new JobExecutionResult(jobId, runtime, metrics()));
    } else {
      result.completeExceptionally(failure);
    }
    terminated.complete(null);
    LOG.info("Job '{}' ({}) {} after {} ms", graph.jobName(), jobId, end, runtime.toMillis());
  }

  /**
   * Has the job's end recorded by {@code recorder} before its clean-up deletes its checkpoints
   * (with high availability: the job's result, so that no later leader runs it again). Before
   * {@link #start()}.
   */
  public void recordEndWith(JobEndRecorder recorder) {
    this.endRecorder = recorder;
  }

  /**
   * Stops acting for the job because this job master no longer leads (Flink's suspend): no trigger,
   * notification, cancellation or delete goes out from now on, nothing is retained or discarded,
   * and the result completes exceptionally with {@link JobStatus#SUSPENDED}. The tasks are left to
   * the job's next leader. Idempotent.
   */
  public void suspend(String why) {
    if (result.isDone()) {
      return;
    }
    suspended = true;
    scheduler.suspend();
    threads.shutdownNow();
    verifier.close();
    terminalStatus = JobStatus.SUSPENDED;
    endTimeMillis = System.currentTimeMillis();
    result.completeExceptionally(
        new JobExecutionException(
            jobId,
            "Job '"
                + graph.jobName()
                + "' ("
                + jobId
                + ") was suspended on this JobManager: "
                + why,
            null));
    terminated.complete(null);
    LOG.info("Job '{}' ({}) suspended: {}", graph.jobName(), jobId, why);
  }

  /**
   * Has the job's end recorded before its clean-up ({@link JobEndRecorder}); false, and the
   * clean-up is skipped, when it could not be.
   */
  private boolean recordEnd(JobStatus end, JobExecutionException failure) {
    String checkpointsToDelete =
        checkpointingEnabled && retentionDeletes(end)
            ? graph
                .configuration()
                .getOptional(CheckpointingOptions.CHECKPOINTS_DIRECTORY)
                .filter(dir -> !dir.isBlank())
                .orElse(null)
            : null;
    try {
      endRecorder.recordEnd(
          end, endTimeMillis, failure == null ? null : failure.getMessage(), checkpointsToDelete);
      return true;
    } catch (Exception e) {
      LOG.warn(
          "Job '{}' ({}) ended {}, but that could not be recorded for the JobManagers to come;"
              + " its checkpoints are kept, as a later leader may run the job again from them: {}",
          graph.jobName(),
          jobId,
          end,
          e.toString());
      return false;
    }
  }

  /** Whether the retention policy deletes the retained checkpoints of a job that ended so. */
  private boolean retentionDeletes(JobStatus end) {
    if (end == JobStatus.FAILED) {
      return false; // after a failure checkpoints are always kept
    }
    ExternalizedCheckpointRetention retention =
        graph.configuration().get(CheckpointingOptions.EXTERNALIZED_CHECKPOINT_RETENTION);
    return end != JobStatus.CANCELED
        || retention != ExternalizedCheckpointRetention.RETAIN_ON_CANCELLATION;
  }

  private void shutdownThreads() {
    threads.shutdown();
    verifier.close();
  }

  private Map<String, Long> metrics() {
    Map<String, Long> metrics = new HashMap<>();
    for (TaskMetrics task : scheduler.metrics()) {
      metrics.merge(task.vertexName() + ".numRecordsIn", task.recordsIn(), Long::sum);
      metrics.merge(task.vertexName() + ".numRecordsOut", task.recordsOut(), Long::sum);
      metrics.merge(task.vertexName() + ".numBytesIn", task.bytesIn(), Long::sum);
      metrics.merge(task.vertexName() + ".numBytesOut", task.bytesOut(), Long::sum);
    }
    metrics.put("job.restarts", (long) scheduler.restarts());
    metrics.put("job.lastRestoredCheckpoint", scheduler.lastRestoredCheckpoint());
    if (checkpointingEnabled) {
      metrics.put("job.checkpoints.lastId", coordinator.lastCheckpointId());
      metrics.put("job.checkpoints.failed", (long) coordinator.failuresTotal());
    }
    return metrics;
  }

  /**
   * The job's metrics now (Flink's job metrics: the last checkpoint's duration and sizes, the
   * checkpoint counts, the last restore, restarts, uptime); {@link JobMetrics#asMap()} gives them
   * by name. Any thread; cheap enough for every scrape.
   */
  public JobMetrics currentMetrics() {
    CheckpointStatsCounts counts = coordinator.statisticsCounts();
    CheckpointStatistics last = coordinator.latestCompletedStatistics();
    return new JobMetrics(
        last == null ? -1 : last.endToEndDurationMillis(),
        last == null ? -1 : last.checkpointedSizeBytes(),
        last == null ? -1 : last.stateSizeBytes(),
        counts.completed(),
        counts.failed(),
        counts.inProgress(),
        scheduler.lastRestoreTimestamp(),
        scheduler.restarts(),
        terminalStatus != null ? -1 : scheduler.uptimeMillis(System.nanoTime()));
  }

  /**
   * Every subtask of the current attempt with the counters its task executor reports now (see
   * {@link SubtaskSampling#subtasks}). Any thread.
   */
  public CompletableFuture<List<SubtaskStatus>> subtasks() {
    return sampling.subtasks(terminalStatus);
  }

  /** When the job first reached each status it reached (Flink's {@code timestamps}). */
  public Map<JobStatus, Long> statusTimestamps() {
    return scheduler.statusTimestamps();
  }

  /** The gateway of the task executor that runs the job's subtasks; for tests. */
  public TaskExecutorGateway taskExecutor() {
    return taskExecutor;
  }

  /**
   * A checkpoint or savepoint an attempt of the job restored.
   *
   * @param checkpointId its id
   * @param timestampMillis when the attempt that restored it was deployed
   * @param externalPath where it lives, or null
   * @param savepoint whether it is a savepoint
   */
  public record Restore(
      long checkpointId, long timestampMillis, String externalPath, boolean savepoint) {}

  /** The newest restore of the job (Flink's latest restored checkpoint), if it restored one. */
  public java.util.Optional<Restore> lastRestore() {
    return java.util.Optional.ofNullable(scheduler.lastRestore());
  }

  /** The job's plan as it runs. */
  public JobGraph graph() {
    return graph;
  }

  /** The coordinator (with checkpointing off it only takes savepoints); for tests and the demo. */
  public CheckpointCoordinator coordinator() {
    return coordinator;
  }

  @Override
  public List<CheckpointStatistics> getCheckpointStatistics() {
    return coordinator.statistics();
  }

  @Override
  public JobID getJobID() {
    return jobId;
  }

  @Override
  public CompletableFuture<JobStatus> getJobStatus() {
    JobStatus end = terminalStatus;
    return CompletableFuture.completedFuture(end != null ? end : scheduler.status());
  }

  /**
   * When the job ended, in epoch milliseconds: the moment the scheduler decided its outcome (the
   * end of the result's runtime), before checkpoints were kept or deleted. -1 while it runs.
   */
  public long endTimeMillis() {
    return endTimeMillis;
  }

  @Override
  public CompletableFuture<JobExecutionResult> getJobExecutionResult() {
    return result;
  }

  @Override
  public CompletableFuture<String> triggerSavepoint(String directory) {
    return savepoints.trigger(directory);
  }

  @Override
  public CompletableFuture<String> stopWithSavepoint(String directory, boolean drain) {
    return savepoints.stop(directory, drain);
  }

  @Override
  public CompletableFuture<Void> cancel() {
    scheduler.cancel();
    return terminated;
  }
}

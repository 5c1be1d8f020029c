package io.weir.runtime.local;

import io.weir.api.CheckpointConfig;
import io.weir.api.CheckpointStatistics;
import io.weir.api.CheckpointingMode;
import io.weir.api.ExternalizedCheckpointRetention;
import io.weir.api.JobClient;
import io.weir.api.JobExecutionException;
import io.weir.api.JobExecutionResult;
import io.weir.api.JobID;
import io.weir.api.JobStatus;
import io.weir.api.config.CheckpointingOptions;
import io.weir.api.config.Configuration;
import io.weir.api.config.CoreOptions;
import io.weir.api.config.KnownKeys;
import io.weir.api.functions.TaskInfo;
import io.weir.api.graph.Partitioning;
import io.weir.api.graph.SourceTransformation;
import io.weir.api.source.Source;
import io.weir.api.typeutils.TypeSerializer;
import io.weir.runtime.checkpoint.BarrierHandler;
import io.weir.runtime.checkpoint.CheckpointCoordinator;
import io.weir.runtime.checkpoint.CompletedCheckpoint;
import io.weir.runtime.checkpoint.CorruptCheckpointException;
import io.weir.runtime.checkpoint.OperatorState;
import io.weir.runtime.checkpoint.OperatorSubtaskState;
import io.weir.runtime.checkpoint.StateAssignment;
import io.weir.runtime.checkpoint.StateElement;
import io.weir.runtime.checkpoint.TaskRestore;
import io.weir.runtime.graph.JobEdge;
import io.weir.runtime.graph.JobGraph;
import io.weir.runtime.graph.JobVertex;
import io.weir.runtime.graph.StreamEdge;
import io.weir.runtime.graph.StreamNode;
import io.weir.runtime.graph.UserCode;
import io.weir.runtime.network.ChannelSelector;
import io.weir.runtime.network.ChannelSelectors;
import io.weir.runtime.network.InputChannel;
import io.weir.runtime.network.RecordWriter;
import io.weir.runtime.recovery.Failures;
import io.weir.runtime.recovery.RestartBackoffStrategy;
import io.weir.runtime.recovery.RestartStrategies;
import io.weir.runtime.recovery.RestoreVerifier;
import io.weir.runtime.state.KeyedStateBackendFactory;
import io.weir.runtime.state.KeyedStateBackends;
import io.weir.runtime.storage.CheckpointStorage;
import io.weir.runtime.storage.CheckpointStorages;
import io.weir.runtime.storage.FileSystemCheckpointStorage;
import io.weir.runtime.storage.FileSystems;
import io.weir.runtime.storage.RetainedCheckpoint;
import io.weir.runtime.task.InputStreamTask;
import io.weir.runtime.task.SourceStreamTask;
import io.weir.runtime.task.StreamTask;
import io.weir.runtime.task.TaskCheckpointing;
import io.weir.runtime.task.TaskListener;
import io.weir.runtime.task.TaskState;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One job on the embedded cluster: deploys a task per subtask, wires their channels, and decides
 * the job's fate from the tasks' ends. A failing task cancels all others and fails the job with the
 * task's exception.
 */
final class LocalJob implements JobClient {

  private static final Logger LOG = LoggerFactory.getLogger(LocalJob.class);

  private final JobID jobId = JobID.generate();
  private final JobGraph graph;
  private final long startNanos = System.nanoTime();
  private final ScheduledExecutorService timer;
  private final ExecutorService snapshotPool;

  /** Deletes of checkpoint files, in order, off the coordinator's lock. */
  private final ExecutorService io;

  private final CompletableFuture<JobExecutionResult> result = new CompletableFuture<>();
  private final CompletableFuture<Void> terminated = new CompletableFuture<>();
  private final boolean checkpointingEnabled;
  private final CheckpointStorage storage;
  private final CheckpointCoordinator coordinator;
  private final RestartBackoffStrategy restartStrategy;

  /** Checkpoints whose state a task found corrupt while restoring; never tried again. */
  private final Map<Long, String> unrestorable = new HashMap<>();

  private final Map<String, String> operatorNames = new HashMap<>();

  /** Checks checkpoints before any task restores from them. */
  private final RestoreVerifier verifier;

  /** The checkpoint given by execution.state-recovery.path, if any, verified intact. */
  private final RetainedCheckpoint initialRestore;

  private volatile JobStatus status = JobStatus.CREATED;

  /** This attempt's tasks; volatile so the coordinator reads it without the job's lock. */
  private volatile List<StreamTask> tasks = new ArrayList<>();

  private int attempt;
  private Throwable failure;
  private boolean cancelRequested;
  private int terminatedTasks;
  private int restarts;
  private int endedAttempt = -1;
  private long lastRestoredCheckpoint = -1;

  LocalJob(JobGraph graph) {
    this.graph = graph;
    Configuration conf = graph.configuration();
    KnownKeys.check(conf);
    // An unknown storage scheme is named first: it is the thing to fix.
    conf.getOptional(CheckpointingOptions.CHECKPOINTS_DIRECTORY)
        .ifPresent(dir -> FileSystems.get(FileSystems.toUri(dir)));
    CheckpointConfig.validate(conf);
    this.checkpointingEnabled = CheckpointConfig.isCheckpointingEnabled(conf);
    this.restartStrategy = RestartStrategies.fromConfiguration(conf, new Random());
    for (JobVertex vertex : graph.vertices()) {
      for (StreamNode node : vertex.getChain()) {
        operatorNames.put(node.getOperatorId(), node.getName());
      }
    }
    KeyedStateBackendFactory backend =
        KeyedStateBackends.factory(conf.get(CheckpointingOptions.STATE_BACKEND));
    backend.validate(conf);
    this.verifier = new RestoreVerifier(operatorNames, backend);
    this.initialRestore = loadInitialRestore(conf);
    this.storage = checkpointingEnabled ? CheckpointStorages.create(conf, jobId.value()) : null;
    this.timer =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "weir-timer-" + graph.jobName());
              t.setDaemon(true);
              return t;
            });
    this.snapshotPool =
        Executors.newFixedThreadPool(
            2,
            r -> {
              Thread t = new Thread(r, "weir-snapshot-" + graph.jobName());
              t.setDaemon(true);
              return t;
            });
    this.io =
        Executors.newSingleThreadExecutor(
            r -> {
              Thread t = new Thread(r, "weir-io-" + graph.jobName());
              t.setDaemon(true);
              return t;
            });
    this.coordinator = checkpointingEnabled ? createCoordinator(conf) : null;
  }

  /**
   * Finds, checks and verifies the checkpoint to resume from, before any task starts. The path may
   * name one checkpoint, which must be intact, or a job's checkpoint directory, whose newest intact
   * checkpoint is taken; the newer ones passed over are logged with the reason.
   */
  private RetainedCheckpoint loadInitialRestore(Configuration conf) {
    Optional<String> path = conf.getOptional(CheckpointingOptions.SAVEPOINT_PATH);
    if (path.isEmpty()) {
      return null;
    }
    String what = CheckpointingOptions.SAVEPOINT_PATH.key() + " = " + path.get();
    FileSystemCheckpointStorage.RestoreCandidates candidates;
    try {
      candidates = FileSystemCheckpointStorage.loadRestoreCandidates(path.get());
    } catch (IOException e) {
      throw new IllegalArgumentException(
          "Cannot resume job '" + graph.jobName() + "' from " + what + ": " + e.getMessage(), e);
    }
    for (String skipped : candidates.skipped()) {
      LOG.warn("Resuming job '{}' from {}: {}", graph.jobName(), path.get(), skipped);
    }
    boolean ignoreUnclaimed = conf.get(CheckpointingOptions.SAVEPOINT_IGNORE_UNCLAIMED_STATE);
    List<String> problems = new ArrayList<>(candidates.skipped());
    for (RetainedCheckpoint candidate : candidates.checkpoints()) {
      checkCompatible(candidate.checkpoint(), ignoreUnclaimed);
      try {
        verifier.verify(candidate.checkpoint(), candidate.storage());
        return candidate;
      } catch (CorruptCheckpointException e) {
        if (!candidates.jobDirectory()) {
          throw new IllegalArgumentException(
              "Cannot resume job '" + graph.jobName() + "' from " + what + ": " + e.getMessage(),
              e);
        }
        String name = "chk-" + candidate.checkpoint().checkpointId();
        problems.add(name + " skipped: " + e.getMessage());
        LOG.warn(
            "Resuming job '{}' from {}: {} skipped: {}",
            graph.jobName(),
            path.get(),
            name,
            e.getMessage());
      }
    }
    throw new IllegalArgumentException(
        "Cannot resume job '"
            + graph.jobName()
            + "' from "
            + what
            + ": no checkpoint in it can be restored: "
            + String.join("; ", problems));
  }

  private void checkCompatible(CompletedCheckpoint checkpoint, boolean ignoreUnclaimed) {
    for (OperatorState op : checkpoint.operators()) {
      boolean hasState =
          op.subtasks().stream().anyMatch(s -> s.keyed() != null || s.operator() != null);
      if (!hasState) {
        continue;
      }
      if (!operatorNames.containsKey(op.operatorId())) {
        if (ignoreUnclaimed) {
          LOG.warn(
              "Ignoring state of operator '{}' ({}) of checkpoint {}: not in this job",
              op.operatorName(),
              op.operatorId(),
              checkpoint.checkpointId());
          continue;
        }
        throw new IllegalStateException(
            "Checkpoint "
                + checkpoint.checkpointId()
                + " holds state of operator '"
                + op.operatorName()
                + "' (id "
                + op.operatorId()
                + ") that this job does not have. Give operators stable uids with .uid(...) so"
                + " their state maps across job versions, or set "
                + CheckpointingOptions.SAVEPOINT_IGNORE_UNCLAIMED_STATE.key()
                + ": true to drop that state.");
      }
      if (op.maxParallelism() != graph.maxParallelism()) {
        throw new IllegalStateException(
            "Checkpoint "
                + checkpoint.checkpointId()
                + " was taken with max parallelism "
                + op.maxParallelism()
                + " for operator '"
                + op.operatorName()
                + "' but the job now has "
                + graph.maxParallelism()
                + "; keyed state cannot move between different key-group counts. Set"
                + " pipeline.max-parallelism back to "
                + op.maxParallelism()
                + ".");
      }
    }
  }

  private CheckpointCoordinator createCoordinator(Configuration conf) {
    CheckpointConfig cc = new CheckpointConfig(conf);
    CheckpointCoordinator.Settings settings =
        new CheckpointCoordinator.Settings(
            cc.getCheckpointInterval().toMillis(),
            cc.getCheckpointTimeout().toMillis(),
            cc.getMinPauseBetweenCheckpoints().toMillis(),
            cc.getMaxConcurrentCheckpoints(),
            cc.getTolerableCheckpointFailureNumber(),
            cc.getNumRetainedCheckpoints());
    List<CheckpointCoordinator.OperatorInfo> operators = new ArrayList<>();
    for (JobVertex vertex : graph.vertices()) {
      for (StreamNode node : vertex.getChain()) {
        operators.add(
            new CheckpointCoordinator.OperatorInfo(
                node.getOperatorId(),
                node.getName(),
                vertex.getIndex(),
                vertex.getParallelism(),
                graph.maxParallelism()));
      }
    }
    return new CheckpointCoordinator(
        jobId.value(),
        settings,
        operators,
        storage,
        new CoordinatorContext(),
        initialRestore == null ? 0 : initialRestore.checkpoint().checkpointId(),
        List.of());
  }

  /** The coordinator's view of the world: the timer thread and this attempt's tasks. */
  private final class CoordinatorContext implements CheckpointCoordinator.Context {
    @Override
    public long currentTimeMillis() {
      return System.currentTimeMillis();
    }

    @Override
    public Runnable schedule(Runnable action, long delayMillis) {
      if (timer.isShutdown()) {
        return () -> {};
      }
      ScheduledFuture<?> f = timer.schedule(action, delayMillis, TimeUnit.MILLISECONDS);
      return () -> f.cancel(false);
    }

    @Override
    public void triggerSources(long checkpointId, long timestamp) {
      for (StreamTask t : currentTasks()) {
        if (t.getVertex().isSource()) {
          t.triggerCheckpointAsync(checkpointId, timestamp);
        }
      }
    }

    @Override
    public void notifyComplete(long checkpointId) {
      boolean isFinal = coordinator.isFinal(checkpointId);
      for (StreamTask t : currentTasks()) {
        t.notifyCheckpointCompleteAsync(checkpointId, isFinal);
      }
    }

    @Override
    public void notifyAborted(long checkpointId) {
      for (StreamTask t : currentTasks()) {
        t.notifyCheckpointAbortedAsync(checkpointId);
      }
    }

    @Override
    public void failJob(Throwable cause) {
      timer.execute(() -> failAttempt(attemptOfNow(), cause));
    }

    @Override
    public Executor ioExecutor() {
      return command -> {
        try {
          io.execute(command);
        } catch (RejectedExecutionException e) {
          command.run(); // the job has ended: the last deletes run on the caller
        }
      };
    }
  }

  private List<StreamTask> currentTasks() {
    return tasks;
  }

  private synchronized int attemptOfNow() {
    return attempt;
  }

  /** Where the tasks of one attempt send acknowledgements. */
  private final class Responder implements TaskCheckpointing.Responder {
    @Override
    public void acknowledge(
        int vertex,
        int subtask,
        long checkpointId,
        Map<String, OperatorSubtaskState> states,
        CheckpointStatistics.SubtaskCheckpointStatistics statistics) {
      coordinator.acknowledge(
          new CheckpointCoordinator.TaskKey(vertex, subtask), checkpointId, states, statistics);
    }

    @Override
    public void decline(int vertex, int subtask, long checkpointId, Throwable cause) {
      coordinator.decline(new CheckpointCoordinator.TaskKey(vertex, subtask), checkpointId, cause);
    }

    @Override
    public void reachedEndOfInput(int vertex, int subtask) {
      coordinator.triggerSoon();
    }
  }

  void start() {
    try {
      if (initialRestore != null) {
        LOG.info(
            "Job '{}' resumes from checkpoint {} at {}",
            graph.jobName(),
            initialRestore.checkpoint().checkpointId(),
            initialRestore.externalPointer());
      }
      synchronized (this) {
        deploy(initialRestore);
      }
    } catch (Exception e) {
      shutdownThreads();
      throw e instanceof RuntimeException re ? re : new IllegalStateException(e);
    }
  }

  /** Deploys every subtask, restoring {@code restoreFrom} (verified), or fresh when null. */
  private void deploy(RetainedCheckpoint restoreFrom) {
    long restoredId = restoreFrom == null ? -1 : restoreFrom.checkpoint().checkpointId();
    int credits = graph.configuration().get(CoreOptions.BUFFERS_PER_CHANNEL);
    int bufferSize = (int) graph.configuration().get(CoreOptions.NETWORK_BUFFER_SIZE).bytes();
    boolean flushAlways = graph.configuration().get(CoreOptions.BUFFER_TIMEOUT).isZero();
    boolean exactlyOnce =
        graph.configuration().get(CheckpointingOptions.CHECKPOINTING_CONSISTENCY_MODE)
            == CheckpointingMode.EXACTLY_ONCE;
    Responder responder = checkpointingEnabled ? new Responder() : null;
    CheckpointConfig cc = new CheckpointConfig(graph.configuration());
    long alignedTimeout = cc.getAlignedCheckpointTimeout().toMillis();
    BarrierHandler.Alignment alignment =
        !cc.isUnalignedCheckpointsEnabled()
            ? BarrierHandler.Alignment.ALIGNED
            : alignedTimeout > 0
                ? BarrierHandler.Alignment.ALIGNED_THEN_UNALIGNED
                : BarrierHandler.Alignment.UNALIGNED;
    lastRestoredCheckpoint = restoredId;
    terminatedTasks = 0;
    int thisAttempt = attempt;
    List<StreamTask> deployed = new ArrayList<>();
    Set<CheckpointCoordinator.TaskKey> keys = new HashSet<>();
    Map<JobVertex, List<StreamTask>> subtasks = new LinkedHashMap<>();
    for (JobVertex vertex : graph.vertices()) {
      List<StreamTask> list = new ArrayList<>();
      List<TaskRestore> restores = assignState(vertex, restoreFrom);
      for (int i = 0; i < vertex.getParallelism(); i++) {
        TaskInfo info =
            new TaskInfo(
                vertex.getName(), i, vertex.getParallelism(), graph.maxParallelism(), thisAttempt);
        TaskCheckpointing cp =
            new TaskCheckpointing(
                checkpointingEnabled,
                exactlyOnce,
                storage,
                snapshotPool,
                responder,
                alignment,
                alignedTimeout);
        TaskListener listener =
            (task, state, cause) -> onTaskTerminated(thisAttempt, task, state, cause);
        StreamTask task =
            vertex.isSource()
                ? new SourceStreamTask<>(graph, vertex, info, timer, listener, cp, restores.get(i))
                : new InputStreamTask(
                    graph, vertex, info, timer, listener, cp, restores.get(i), credits);
        list.add(task);
        deployed.add(task);
        keys.add(new CheckpointCoordinator.TaskKey(vertex.getIndex(), i));
      }
      subtasks.put(vertex, list);
    }
    for (JobVertex vertex : graph.vertices()) {
      for (JobEdge edge : vertex.getOutputs()) {
        wire(
            edge,
            subtasks.get(edge.producer()),
            subtasks.get(edge.consumer()),
            bufferSize,
            flushAlways);
      }
    }
    tasks = deployed;
    if (coordinator != null) {
      coordinator.setTasks(keys);
      // Before any task runs: a fast bounded source asks for its final checkpoint at once.
      coordinator.start();
    }
    status = JobStatus.RUNNING;
    LOG.info(
        "Job '{}' ({}) attempt {} starts {} tasks{}",
        graph.jobName(),
        jobId,
        thisAttempt,
        deployed.size(),
        restoredId >= 0 ? " from checkpoint " + restoredId : "");
    for (StreamTask task : deployed) {
      task.start();
    }
  }

  /**
   * Every subtask's share of {@code restoreFrom} for {@code vertex} (handles: each task reads its
   * own), or a fresh start; a source without state of its own in the checkpoint creates its splits.
   */
  private List<TaskRestore> assignState(JobVertex vertex, RetainedCheckpoint restoreFrom) {
    int parallelism = vertex.getParallelism();
    List<List<StateElement>> fresh = new ArrayList<>();
    boolean needsSplits =
        vertex.isSource()
            && (restoreFrom == null
                || restoreFrom.checkpoint().operator(vertex.getHead().getOperatorId()) == null);
    if (needsSplits) {
      fresh = freshSplits(vertex);
    } else {
      for (int i = 0; i < parallelism; i++) {
        fresh.add(List.of());
      }
    }
    if (restoreFrom == null) {
      List<TaskRestore> restores = new ArrayList<>();
      for (int i = 0; i < parallelism; i++) {
        restores.add(TaskRestore.fresh(fresh.get(i)));
      }
      return restores;
    }
    return StateAssignment.assign(
        vertex,
        graph.maxParallelism(),
        restoreFrom.checkpoint(),
        restoreFrom.storage(),
        restoreFrom.storage() == storage,
        fresh);
  }

  /**
   * A source's splits for a fresh start, dealt round robin, serialized as a checkpoint has them.
   */
  @SuppressWarnings({"unchecked", "rawtypes"})
  private List<List<StateElement>> freshSplits(JobVertex vertex) {
    StreamNode head = vertex.getHead();
    Source source = ((SourceTransformation<?>) head.getTransformation()).getSource();
    int parallelism = vertex.getParallelism();
    List<Object> all;
    try {
      all = (List<Object>) source.createSplits(parallelism);
    } catch (Exception e) {
      throw new IllegalStateException(
          "Source '" + head.getName() + "' could not create its splits: " + e, e);
    }
    List<List<StateElement>> perSubtask = new ArrayList<>();
    for (int i = 0; i < parallelism; i++) {
      perSubtask.add(new ArrayList<>());
    }
    for (int i = 0; i < all.size(); i++) {
      try {
        perSubtask
            .get(i % parallelism)
            .add(
                new StateElement.Inline(
                    SourceStreamTask.serializeSplit(all.get(i), source.getSplitSerializer())));
      } catch (IOException e) {
        throw new UncheckedIOException(
            "Source '" + head.getName() + "' could not serialize its split " + all.get(i), e);
      }
    }
    return perSubtask;
  }

  @SuppressWarnings({"unchecked", "rawtypes"})
  private void wire(
      JobEdge edge,
      List<StreamTask> producers,
      List<StreamTask> consumers,
      int bufferSize,
      boolean flushAlways) {
    StreamEdge streamEdge = edge.streamEdge();
    Partitioning partitioning = streamEdge.partitioning();
    boolean pointwise = partitioning instanceof Partitioning.Forward;
    for (int p = 0; p < producers.size(); p++) {
      StreamTask producer = producers.get(p);
      List<StreamTask> targets = pointwise ? List.of(consumers.get(p)) : consumers;
      InputChannel[] channels = new InputChannel[targets.size()];
      for (int c = 0; c < targets.size(); c++) {
        InputStreamTask consumer = (InputStreamTask) targets.get(c);
        channels[c] =
            consumer
                .getInputGate()
                .addChannel(streamEdge.inputIndex(), producer.getTaskInfo().taskNameWithSubtasks());
        channels[c].setProducerWaker(producer.getWaker());
      }
      TypeSerializer serializer = streamEdge.source().getOutputType().createSerializer();
      ChannelSelector selector = selector(partitioning, channels.length, p, streamEdge);
      producer.addWriter(
          streamEdge,
          new RecordWriter<>(
              channels,
              selector,
              serializer,
              bufferSize,
              flushAlways,
              producer.getWaker(),
              producer::isCancelled));
    }
  }

  private ChannelSelector<?> selector(
      Partitioning partitioning, int channels, int producerIndex, StreamEdge edge) {
    if (partitioning instanceof Partitioning.Forward) {
      return ChannelSelectors.forward();
    } else if (partitioning instanceof Partitioning.Rebalance) {
      return ChannelSelectors.rebalance(channels, producerIndex);
    } else if (partitioning instanceof Partitioning.Broadcast) {
      return ChannelSelectors.broadcast();
    } else if (partitioning instanceof Partitioning.Hash<?, ?> hash) {
      return ChannelSelectors.keyGroup(
          UserCode.copy(hash.keyContext().selector(), "key selector of " + edge.target().getName()),
          graph.maxParallelism(),
          channels,
          edge.target().getName());
    }
    throw new IllegalArgumentException("Unknown partitioning " + partitioning);
  }

  private synchronized void onTaskTerminated(
      int taskAttempt, StreamTask task, TaskState state, Throwable cause) {
    if (taskAttempt != attempt) {
      return; // a task of an attempt already given up
    }
    terminatedTasks++;
    if (state == TaskState.FINISHED && coordinator != null) {
      coordinator.taskFinished(
          new CheckpointCoordinator.TaskKey(
              task.getVertex().getIndex(), task.getTaskInfo().indexOfThisSubtask()));
    }
    if (state == TaskState.FAILED && failure == null && !cancelRequested) {
      failAttempt(taskAttempt, cause);
    }
    if (terminatedTasks == tasks.size()) {
      onAttemptEnded();
    }
  }

  /** Fails the current attempt: every task is cancelled; the restart strategy decides next. */
  private synchronized void failAttempt(int failedAttempt, Throwable cause) {
    if (failedAttempt != attempt || failure != null || status.isGloballyTerminalState()) {
      return;
    }
    failure = cause;
    status = JobStatus.FAILING;
    long corrupt = CorruptCheckpointException.findIn(cause);
    if (corrupt >= 0) {
      markUnrestorable(corrupt, cause.getMessage());
    }
    LOG.warn("Job '{}' attempt {} fails: {}", graph.jobName(), attempt, cause.getMessage());
    if (coordinator != null) {
      coordinator.stop();
    }
    for (StreamTask t : tasks) {
      t.cancel();
    }
    if (terminatedTasks == tasks.size()) {
      onAttemptEnded();
    }
  }

  private void onAttemptEnded() {
    if (endedAttempt == attempt) {
      return; // both the failing task and the last one to stop report the end
    }
    endedAttempt = attempt;
    if (failure != null && !cancelRequested) {
      Throwable nonRecoverable = Failures.findNonRecoverable(failure);
      if (nonRecoverable != null) {
        LOG.warn(
            "Job '{}' does not restart: the failure would recur on every attempt ({})",
            graph.jobName(),
            nonRecoverable.getMessage());
        finishJob(
            new JobExecutionException(
                jobId,
                "Job '"
                    + graph.jobName()
                    + "' ("
                    + jobId
                    + ") failed and will not restart, since the failure would recur on every"
                    + " attempt: "
                    + failure.getMessage(),
                failure));
        return;
      }
      if (lastRestoredCheckpoint >= 0
          && CorruptCheckpointException.findIn(failure) == lastRestoredCheckpoint) {
        // The attempt failed restoring its checkpoint: falling back to an older one is not a
        // restart the strategy counts.
        status = JobStatus.RESTARTING;
        LOG.info(
            "Job '{}' falls back from checkpoint {}, which cannot be restored",
            graph.jobName(),
            lastRestoredCheckpoint);
        timer.execute(this::restart);
        return;
      }
      restartStrategy.notifyFailure(System.currentTimeMillis());
      if (restartStrategy.canRestart()) {
        status = JobStatus.RESTARTING;
        long delay = restartStrategy.getBackoffMillis();
        LOG.info(
            "Job '{}' restarts in {} ms ({})", graph.jobName(), delay, restartStrategy.describe());
        timer.schedule(this::restart, delay, TimeUnit.MILLISECONDS);
        return;
      }
      finishJob(
          new JobExecutionException(
              jobId,
              "Job '"
                  + graph.jobName()
                  + "' ("
                  + jobId
                  + ") failed"
                  + (restarts > 0 || checkpointingEnabled
                      ? " and will not restart (" + restartStrategy.describe() + ")"
                      : "")
                  + ": "
                  + failure.getMessage(),
              failure));
      return;
    }
    if (cancelRequested) {
      finishJob(
          new JobExecutionException(
              jobId, "Job '" + graph.jobName() + "' (" + jobId + ") was cancelled", null));
      return;
    }
    finishJob(null);
  }

  /** Checkpoint {@code id} cannot be restored: no attempt tries it again. */
  private void markUnrestorable(long id, String why) {
    if (unrestorable.putIfAbsent(id, why) == null) {
      LOG.warn(
          "Checkpoint {} of job '{}' cannot be restored ({}); falling back to the previous"
              + " retained checkpoint",
          id,
          graph.jobName(),
          why);
    }
  }

  /**
   * Redeploys every task from the newest checkpoint that verifies intact (see {@link
   * RestoreVerifier}): the job's retained checkpoints newest first, then the one it was started
   * from. A checkpoint that does not verify is marked unrestorable and skipped, which costs no
   * restart attempt. If checkpoints exist but none can be restored, the job fails: starting from
   * empty state would break exactly-once silently.
   */
  private synchronized void restart() {
    if (result.isDone()) {
      return;
    }
    if (cancelRequested) {
      finishJob(
          new JobExecutionException(
              jobId, "Job '" + graph.jobName() + "' (" + jobId + ") was cancelled", null));
      return;
    }
    attempt++;
    restarts++;
    Throwable previousFailure = failure;
    failure = null;
    try {
      List<RetainedCheckpoint> candidates = new ArrayList<>();
      if (coordinator != null) {
        for (CompletedCheckpoint c : coordinator.retained()) {
          candidates.add(new RetainedCheckpoint(c, "chk-" + c.checkpointId(), storage));
        }
      }
      if (initialRestore != null) {
        candidates.add(initialRestore);
      }
      RetainedCheckpoint restoreFrom = null;
      List<String> problems = new ArrayList<>();
      for (RetainedCheckpoint candidate : candidates) {
        long id = candidate.checkpoint().checkpointId();
        String unreadable = unrestorable.get(id);
        if (unreadable == null) {
          try {
            verifier.verify(candidate.checkpoint(), candidate.storage());
            restoreFrom = candidate;
            break;
          } catch (CorruptCheckpointException e) {
            markUnrestorable(id, e.getMessage());
            unreadable = e.getMessage();
          }
        }
        problems.add("checkpoint " + id + ": " + unreadable);
      }
      if (restoreFrom == null && !candidates.isEmpty()) {
        throw new IllegalStateException(
            "None of the retained checkpoints can be restored, and starting from empty state"
                + " would lose exactly-once: "
                + String.join("; ", problems)
                + ". Raise execution.checkpointing.num-retained to keep more fallbacks.");
      }
      deploy(restoreFrom);
    } catch (RuntimeException e) {
      failure = e;
      if (previousFailure != null) {
        e.addSuppressed(previousFailure);
      }
      finishJob(
          new JobExecutionException(
              jobId, "Job '" + graph.jobName() + "' could not restart: " + e.getMessage(), e));
    }
  }

  private void finishJob(JobExecutionException error) {
    if (result.isDone()) {
      return;
    }
    if (coordinator != null) {
      coordinator.stop();
    }
    Duration runtime = Duration.ofNanos(System.nanoTime() - startNanos);
    JobStatus end =
        error == null
            ? JobStatus.FINISHED
            : cancelRequested ? JobStatus.CANCELED : JobStatus.FAILED;
    applyRetention(end);
    drainIo();
    shutdownThreads();
    status = end;
    if (error == null) {
      result.complete(new JobExecutionResult(jobId, runtime, metrics()));
    } else {
      result.completeExceptionally(error);
    }
    terminated.complete(null);
    LOG.info("Job '{}' ({}) {} after {} ms", graph.jobName(), jobId, end, runtime.toMillis());
  }

  /** Deletes or keeps the retained checkpoints, as the retention policy says. */
  private void applyRetention(JobStatus end) {
    if (coordinator == null || end == JobStatus.FAILED) {
      return; // after a failure checkpoints are always kept
    }
    ExternalizedCheckpointRetention retention =
        graph.configuration().get(CheckpointingOptions.EXTERNALIZED_CHECKPOINT_RETENTION);
    if (end == JobStatus.CANCELED
        && retention == ExternalizedCheckpointRetention.RETAIN_ON_CANCELLATION) {
      return;
    }
    coordinator.discardRetained();
  }

  private void shutdownThreads() {
    timer.shutdownNow();
    snapshotPool.shutdown();
    io.shutdown();
    verifier.close();
  }

  /** Lets the deletes of checkpoint files end before the job reports its end. */
  private void drainIo() {
    io.shutdown();
    try {
      if (!io.awaitTermination(30, TimeUnit.SECONDS)) {
        LOG.warn("Deleting checkpoint files of job '{}' still runs after 30 s", graph.jobName());
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** Lets uploads still running finish, so no state lands after the job's cleanup. */
  private void drainSnapshotPool() {
    snapshotPool.shutdown();
    try {
      if (!snapshotPool.awaitTermination(10, TimeUnit.SECONDS)) {
        LOG.warn("Snapshot uploads of job '{}' still run after 10 s", graph.jobName());
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private Map<String, Long> metrics() {
    Map<String, Long> metrics = new HashMap<>();
    for (StreamTask task : tasks) {
      String name = task.getVertex().getName();
      metrics.merge(name + ".numRecordsIn", task.getNumRecordsIn(), Long::sum);
      metrics.merge(name + ".numRecordsOut", task.getNumRecordsOut(), Long::sum);
    }
    metrics.put("job.restarts", (long) restarts);
    metrics.put("job.lastRestoredCheckpoint", lastRestoredCheckpoint);
    if (coordinator != null) {
      metrics.put("job.checkpoints.lastId", coordinator.lastCheckpointId());
      metrics.put("job.checkpoints.failed", (long) coordinator.failuresTotal());
    }
    return metrics;
  }

  /** The deployed subtasks of the current attempt; for tests that look at the runtime. */
  List<StreamTask> tasks() {
    return tasks;
  }

  /** The coordinator, or null when checkpointing is off; for tests and the demo. */
  CheckpointCoordinator coordinator() {
    return coordinator;
  }

  @Override
  public List<CheckpointStatistics> getCheckpointStatistics() {
    return coordinator == null ? List.of() : coordinator.statistics();
  }

  @Override
  public JobID getJobID() {
    return jobId;
  }

  @Override
  public CompletableFuture<JobStatus> getJobStatus() {
    return CompletableFuture.completedFuture(status);
  }

  @Override
  public CompletableFuture<JobExecutionResult> getJobExecutionResult() {
    return result;
  }

  @Override
  public CompletableFuture<Void> cancel() {
    synchronized (this) {
      if (!status.isGloballyTerminalState() && !cancelRequested) {
        cancelRequested = true;
        status = JobStatus.CANCELLING;
        if (coordinator != null) {
          coordinator.stop();
        }
        for (StreamTask t : tasks) {
          t.cancel();
        }
        if (terminatedTasks == tasks.size() && failure != null) {
          // Waiting for a restart: nothing runs, end now.
          onAttemptEnded();
        }
      }
    }
    return terminated;
  }
}

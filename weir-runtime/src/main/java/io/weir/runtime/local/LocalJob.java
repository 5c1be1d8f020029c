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
import io.weir.runtime.checkpoint.RestoredOperatorState;
import io.weir.runtime.checkpoint.SubtaskStateCodec;
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
import io.weir.runtime.recovery.RestartBackoffStrategy;
import io.weir.runtime.recovery.RestartStrategies;
import io.weir.runtime.state.DefaultOperatorStateStore;
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
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
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
  private final CompletableFuture<JobExecutionResult> result = new CompletableFuture<>();
  private final CompletableFuture<Void> terminated = new CompletableFuture<>();
  private final boolean checkpointingEnabled;
  private final CheckpointStorage storage;
  private final CheckpointCoordinator coordinator;
  private final RestartBackoffStrategy restartStrategy;

  /** Checkpoints whose state a task found corrupt while restoring; never tried again. */
  private final Map<Long, String> unrestorable = new HashMap<>();

  private final Map<String, String> operatorNames = new HashMap<>();

  /** The checkpoint given by execution.state-recovery.path, if any. */
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
    // An unknown storage scheme is named first: it is the thing to fix.
    conf.getOptional(CheckpointingOptions.CHECKPOINTS_DIRECTORY)
        .ifPresent(dir -> FileSystems.get(FileSystems.toUri(dir)));
    CheckpointConfig.validate(conf);
    this.checkpointingEnabled =
        conf.getOptional(CheckpointingOptions.CHECKPOINTING_INTERVAL).isPresent();
    this.restartStrategy =
        RestartStrategies.fromConfiguration(conf, checkpointingEnabled, new Random());
    for (JobVertex vertex : graph.vertices()) {
      for (StreamNode node : vertex.getChain()) {
        operatorNames.put(node.getOperatorId(), node.getName());
      }
    }
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
    this.coordinator = checkpointingEnabled ? createCoordinator(conf) : null;
  }

  /** Reads and checks the checkpoint to resume from, before any task starts. */
  private RetainedCheckpoint loadInitialRestore(Configuration conf) {
    Optional<String> path = conf.getOptional(CheckpointingOptions.SAVEPOINT_PATH);
    if (path.isEmpty()) {
      return null;
    }
    RetainedCheckpoint retained;
    try {
      retained = FileSystemCheckpointStorage.loadFromPath(path.get());
    } catch (IOException e) {
      throw new IllegalArgumentException(
          "Cannot resume job '"
              + graph.jobName()
              + "' from "
              + CheckpointingOptions.SAVEPOINT_PATH.key()
              + " = "
              + path.get()
              + ": "
              + e.getMessage(),
          e);
    }
    checkCompatible(
        retained.checkpoint(), conf.get(CheckpointingOptions.SAVEPOINT_IGNORE_UNCLAIMED_STATE));
    return retained;
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
      Map<String, SubtaskStateCodec.LoadedOperator> restored = Map.of();
      long restoredId = -1;
      if (initialRestore != null) {
        restored = load(initialRestore.checkpoint(), initialRestore.storage());
        restoredId = initialRestore.checkpoint().checkpointId();
        LOG.info(
            "Job '{}' resumes from checkpoint {} at {}",
            graph.jobName(),
            restoredId,
            initialRestore.externalPointer());
      }
      synchronized (this) {
        deploy(restored, restoredId);
      }
    } catch (Exception e) {
      shutdownThreads();
      throw e instanceof RuntimeException re ? re : new IllegalStateException(e);
    }
  }

  /** Reads and verifies every state file of a checkpoint. */
  private Map<String, SubtaskStateCodec.LoadedOperator> load(
      CompletedCheckpoint checkpoint, CheckpointStorage from) {
    Map<String, SubtaskStateCodec.LoadedOperator> loaded = new HashMap<>();
    for (OperatorState op : checkpoint.operators()) {
      if (operatorNames.containsKey(op.operatorId())) {
        try {
          loaded.put(op.operatorId(), SubtaskStateCodec.load(op, from, from == storage));
        } catch (IOException e) {
          throw new UncheckedIOException(
              "Checkpoint "
                  + checkpoint.checkpointId()
                  + ", state of operator '"
                  + op.operatorName()
                  + "': "
                  + e.getMessage(),
              e);
        }
      }
    }
    return loaded;
  }

  private void deploy(Map<String, SubtaskStateCodec.LoadedOperator> restored, long restoredId) {
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
      List<List<Object>> splits =
          vertex.isSource() ? assignSplits(vertex, restored, restoredId) : null;
      for (int i = 0; i < vertex.getParallelism(); i++) {
        TaskInfo info =
            new TaskInfo(
                vertex.getName(), i, vertex.getParallelism(), graph.maxParallelism(), thisAttempt);
        Map<String, RestoredOperatorState> taskState = new HashMap<>();
        for (StreamNode node : vertex.getChain()) {
          SubtaskStateCodec.LoadedOperator op = restored.get(node.getOperatorId());
          if (op != null && !node.isSource()) {
            taskState.put(
                node.getOperatorId(), op.forSubtask(restoredId, i, vertex.getParallelism()));
          }
        }
        Map<String, List<byte[]>> channelState =
            extractChannelState(vertex, restored, restoredId, i, taskState);
        TaskCheckpointing cp =
            new TaskCheckpointing(
                checkpointingEnabled,
                exactlyOnce,
                storage,
                snapshotPool,
                responder,
                taskState,
                alignment,
                alignedTimeout,
                channelState);
        TaskListener listener =
            (task, state, cause) -> onTaskTerminated(thisAttempt, task, state, cause);
        StreamTask task =
            vertex.isSource()
                ? new SourceStreamTask<>(graph, vertex, info, timer, listener, cp, splits.get(i))
                : new InputStreamTask(graph, vertex, info, timer, listener, cp, credits);
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
   * Takes the in-flight data of an unaligned checkpoint out of the head operator's restored lists
   * (so it is replayed once, not carried into later checkpoints). In-flight data cannot be split
   * across another number of subtasks: a changed parallelism is refused.
   */
  private Map<String, List<byte[]>> extractChannelState(
      JobVertex vertex,
      Map<String, SubtaskStateCodec.LoadedOperator> restored,
      long restoredId,
      int subtask,
      Map<String, RestoredOperatorState> taskState) {
    StreamNode head = vertex.getHead();
    SubtaskStateCodec.LoadedOperator loaded = restored.get(head.getOperatorId());
    if (loaded == null) {
      return Map.of();
    }
    boolean hasChannelState =
        loaded.operatorLists().stream()
            .anyMatch(
                lists ->
                    lists.keySet().stream()
                        .anyMatch(n -> n.startsWith(TaskCheckpointing.CHANNEL_STATE_PREFIX)));
    if (!hasChannelState) {
      return Map.of();
    }
    if (loaded.operatorLists().size() != vertex.getParallelism()) {
      throw new IllegalStateException(
          "Checkpoint "
              + restoredId
              + " is unaligned and holds in-flight data of '"
              + vertex.getName()
              + "' for parallelism "
              + loaded.operatorLists().size()
              + "; it cannot be restored at parallelism "
              + vertex.getParallelism()
              + ". Restore at the old parallelism, or rescale from an aligned checkpoint.");
    }
    Map<String, List<byte[]>> channelState = new HashMap<>();
    Map<String, DefaultOperatorStateStore.RestoredList> rest = new LinkedHashMap<>();
    loaded
        .operatorLists()
        .get(subtask)
        .forEach(
            (name, list) -> {
              if (name.startsWith(TaskCheckpointing.CHANNEL_STATE_PREFIX)) {
                channelState.put(name, list.elements());
              } else {
                rest.put(name, list);
              }
            });
    if (!head.isSource()) {
      RestoredOperatorState original = taskState.get(head.getOperatorId());
      if (original != null) {
        taskState.put(
            head.getOperatorId(),
            new RestoredOperatorState(
                original.checkpointId(), original.keyed(), original.incremental(), rest));
      }
    }
    return channelState;
  }

  @SuppressWarnings({"unchecked", "rawtypes"})
  private List<List<Object>> assignSplits(
      JobVertex vertex, Map<String, SubtaskStateCodec.LoadedOperator> restored, long restoredId) {
    StreamNode head = vertex.getHead();
    Source<?, ?> source = ((SourceTransformation<?>) head.getTransformation()).getSource();
    int parallelism = vertex.getParallelism();
    List<List<Object>> perSubtask = new ArrayList<>();
    SubtaskStateCodec.LoadedOperator state = restored.get(head.getOperatorId());
    if (state != null) {
      for (int i = 0; i < parallelism; i++) {
        DefaultOperatorStateStore.RestoredList list =
            state
                .forSubtask(restoredId, i, parallelism)
                .operatorLists()
                .get(SourceStreamTask.SPLITS_STATE);
        try {
          perSubtask.add(
              list == null
                  ? new ArrayList<>()
                  : (List<Object>)
                      (List)
                          SourceStreamTask.deserializeSplits(
                              list.elements(), source.getSplitSerializer()));
        } catch (IOException e) {
          throw new UncheckedIOException(
              "Cannot read the checkpointed splits of source '" + head.getName() + "': " + e, e);
        }
      }
      return perSubtask;
    }
    List<Object> all;
    try {
      all = (List<Object>) (List) source.createSplits(parallelism);
    } catch (Exception e) {
      throw new IllegalStateException(
          "Source '" + head.getName() + "' could not create its splits: " + e, e);
    }
    for (int i = 0; i < parallelism; i++) {
      perSubtask.add(new ArrayList<>());
    }
    for (int i = 0; i < all.size(); i++) {
      perSubtask.get(i % parallelism).add(all.get(i));
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
      TypeSerializer serializer = streamEdge.recordType().createSerializer();
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
      unrestorable.put(corrupt, cause.getMessage());
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

  /**
   * Redeploys every task from the newest checkpoint that reads back intact. If checkpoints were
   * taken but none can be read, the job fails: starting from empty state would break exactly-once
   * silently.
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
      Map<String, SubtaskStateCodec.LoadedOperator> restored = Map.of();
      long restoredId = -1;
      List<CompletedCheckpoint> candidates =
          coordinator == null ? List.of() : coordinator.retained();
      List<String> problems = new ArrayList<>();
      for (CompletedCheckpoint candidate : candidates) {
        String unreadable = unrestorable.get(candidate.checkpointId());
        if (unreadable != null) {
          problems.add("checkpoint " + candidate.checkpointId() + ": " + unreadable);
          LOG.warn(
              "Checkpoint {} of job '{}' cannot be restored ({}); falling back to the previous"
                  + " retained checkpoint",
              candidate.checkpointId(),
              graph.jobName(),
              unreadable);
          continue;
        }
        try {
          restored = load(candidate, storage);
          restoredId = candidate.checkpointId();
          break;
        } catch (RuntimeException e) {
          problems.add("checkpoint " + candidate.checkpointId() + ": " + e.getMessage());
          LOG.warn(
              "Checkpoint {} of job '{}' cannot be restored ({}); falling back to the previous"
                  + " retained checkpoint",
              candidate.checkpointId(),
              graph.jobName(),
              e.getMessage());
        }
      }
      if (restoredId < 0 && !candidates.isEmpty()) {
        throw new IllegalStateException(
            "None of the retained checkpoints can be restored, and starting from empty state"
                + " would lose exactly-once: "
                + String.join("; ", problems)
                + ". Raise execution.checkpointing.num-retained to keep more fallbacks.");
      }
      if (restoredId < 0 && initialRestore != null) {
        restored = load(initialRestore.checkpoint(), initialRestore.storage());
        restoredId = initialRestore.checkpoint().checkpointId();
      }
      deploy(restored, restoredId);
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

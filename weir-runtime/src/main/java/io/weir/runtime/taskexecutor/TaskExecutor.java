package io.weir.runtime.taskexecutor;

import io.weir.api.CheckpointStatistics;
import io.weir.api.config.CheckpointingOptions;
import io.weir.api.config.Configuration;
import io.weir.api.config.CoreOptions;
import io.weir.api.functions.TaskInfo;
import io.weir.api.graph.Partitioning;
import io.weir.api.typeutils.TypeSerializer;
import io.weir.runtime.checkpoint.CheckpointOptions;
import io.weir.runtime.checkpoint.OperatorSubtaskState;
import io.weir.runtime.classloading.TemporaryClassLoaderContext;
import io.weir.runtime.classloading.UserCodeThreads;
import io.weir.runtime.graph.JobEdge;
import io.weir.runtime.graph.JobGraph;
import io.weir.runtime.graph.JobVertex;
import io.weir.runtime.graph.StreamEdge;
import io.weir.runtime.graph.UserCode;
import io.weir.runtime.jobmaster.JobMasterGateway;
import io.weir.runtime.metrics.TaskMetricsReporter;
import io.weir.runtime.metrics.TaskScope;
import io.weir.runtime.network.ChannelId;
import io.weir.runtime.network.ChannelSelector;
import io.weir.runtime.network.ChannelSelectors;
import io.weir.runtime.network.CreditDepth;
import io.weir.runtime.network.InputChannel;
import io.weir.runtime.network.LocalResultSubpartition;
import io.weir.runtime.network.RecordWriter;
import io.weir.runtime.network.ResultSubpartition;
import io.weir.runtime.state.TaskLocalStateStore;
import io.weir.runtime.storage.CheckpointStorageWorkerView;
import io.weir.runtime.storage.CheckpointStorages;
import io.weir.runtime.task.InputStreamTask;
import io.weir.runtime.task.SourceStreamTask;
import io.weir.runtime.task.StreamTask;
import io.weir.runtime.task.TaskCheckpointing;
import io.weir.runtime.task.TaskListener;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs subtasks for job masters: creates a {@link StreamTask} per deployment descriptor, wires the
 * channels between the subtasks it runs, starts them, routes checkpoint triggers, notifications and
 * cancellations to them, and reports their acknowledgements and ends to the job master. Each job
 * has its own timer thread and snapshot threads here, released when the job ends.
 *
 * <p>Every thread that runs the job's code or reads its types has the job's user-code class loader
 * as its context class loader, as in Flink: the subtasks' threads, the job's timer and snapshot
 * threads here, and the caller's thread while it deploys subtasks.
 *
 * <p>Local execution runs one in the same JVM as its job master; a TaskManager process runs one per
 * job behind the control plane. Thread-safe.
 */
public final class TaskExecutor implements TaskExecutorGateway, AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(TaskExecutor.class);

  private final JobMasterGateway jobMaster;
  private final DataPlane dataPlane;
  private final TaskMetricsReporter metrics;
  private final ClassLoader userClassLoader;
  private final Map<ExecutionAttemptId, StreamTask> tasks = new ConcurrentHashMap<>();
  private final Map<String, JobResources> jobs = new HashMap<>();

  /** The threads and storage the subtasks of one job share on this task executor. */
  private static final class JobResources {
    final ScheduledExecutorService timer;
    final ExecutorService snapshotPool;
    final CheckpointStorageWorkerView storage;
    final Configuration configuration;
    final String jobId;
    final boolean checkpointing;

    /** Local copies of snapshots per (vertex, subtask), kept across the job's attempts. */
    final Map<List<Integer>, TaskLocalStateStore> localState = new ConcurrentHashMap<>();

    int running;
    boolean released;

    JobResources(JobGraph graph, String jobId, boolean checkpointing, ClassLoader loader) {
      this.configuration = graph.configuration();
      this.jobId = jobId;
      this.timer =
          Executors.newSingleThreadScheduledExecutor(
              UserCodeThreads.factory("weir-timer-" + graph.jobName(), loader));
      this.snapshotPool =
          Executors.newFixedThreadPool(
              2, UserCodeThreads.factory("weir-snapshot-" + graph.jobName(), loader));
      this.checkpointing = checkpointing;
      this.storage =
          checkpointing
              ? CheckpointStorages.create(graph.configuration(), jobId)
              : CheckpointStorages.forSavepointsOnly(graph.configuration());
    }

    /** The local copies of subtask {@code subtask} of vertex {@code vertex}, or null for none. */
    TaskLocalStateStore localState(int vertex, int subtask) {
      if (!checkpointing || !CheckpointingOptions.localBackup(configuration)) {
        return null;
      }
      return localState.computeIfAbsent(
          List.of(vertex, subtask),
          k -> TaskLocalStateStore.create(configuration, jobId, vertex, subtask));
    }

    /** Stops the threads; uploads still running may end first; deletes the local copies. */
    void shutdown() {
      timer.shutdownNow();
      snapshotPool.shutdown();
      try {
        if (!snapshotPool.awaitTermination(10, TimeUnit.SECONDS)) {
          LOG.warn("Snapshot uploads still run after 10 s");
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      if (checkpointing) {
        TaskLocalStateStore.discardJob(configuration, jobId);
      }
    }
  }

  /** A task executor that reports to {@code jobMaster} and runs whole attempts in this process. */
  public TaskExecutor(JobMasterGateway jobMaster) {
    this(jobMaster, null);
  }

  /**
   * A task executor that reports to {@code jobMaster} and reaches subtasks in other processes
   * through {@code dataPlane} (null: every subtask of an attempt runs here).
   */
  public TaskExecutor(JobMasterGateway jobMaster, DataPlane dataPlane) {
    this(jobMaster, dataPlane, TaskMetricsReporter.NONE);
  }

  /**
   * As {@link #TaskExecutor(JobMasterGateway, DataPlane)}, reporting each subtask's metrics to
   * {@code metrics} while it runs. The job's classes are those of the context class loader of the
   * thread that creates it, as in local execution, where they are on the class path.
   */
  public TaskExecutor(
      JobMasterGateway jobMaster, DataPlane dataPlane, TaskMetricsReporter metrics) {
    this(jobMaster, dataPlane, metrics, Thread.currentThread().getContextClassLoader());
  }

  /**
   * As {@link #TaskExecutor(JobMasterGateway, DataPlane, TaskMetricsReporter)}, for a job whose
   * classes {@code userClassLoader} loads (a TaskManager's class loader over the job's jar): the
   * context class loader of every thread here that runs the job's code.
   */
  public TaskExecutor(
      JobMasterGateway jobMaster,
      DataPlane dataPlane,
      TaskMetricsReporter metrics,
      ClassLoader userClassLoader) {
    this.jobMaster = jobMaster;
    this.dataPlane = dataPlane;
    this.metrics = metrics;
    this.userClassLoader = userClassLoader;
  }

  /**
   * Creates, wires and starts the subtasks; on the caller's thread with the job's class loader as
   * context class loader, since creating them copies the job's functions and reads its types.
   */
  @Override
  public void submitTasks(List<TaskDeploymentDescriptor> descriptors) {
    if (descriptors.isEmpty()) {
      return;
    }
    try (var ignored = TemporaryClassLoaderContext.of(userClassLoader)) {
      deploy(descriptors);
    }
  }

  private void deploy(List<TaskDeploymentDescriptor> descriptors) {
    JobGraph graph = descriptors.get(0).graph();
    String jobId = descriptors.get(0).id().jobId();
    JobResources job = resources(graph, jobId, descriptors.get(0).checkpointing().enabled());
    Map<Integer, Map<Integer, StreamTask>> byVertex = new HashMap<>();
    List<StreamTask> created = new ArrayList<>();
    for (TaskDeploymentDescriptor tdd : descriptors) {
      StreamTask task = createTask(tdd, job);
      byVertex
          .computeIfAbsent(tdd.id().vertex(), v -> new HashMap<>())
          .put(tdd.id().subtask(), task);
      created.add(task);
      tasks.put(tdd.id(), task);
    }
    SubtaskLocations locations = descriptors.get(0).locations();
    if (!locations.allLocal() && dataPlane == null) {
      throw new IllegalStateException(
          "Job '"
              + graph.jobName()
              + "' runs across processes but this task executor has no data plane");
    }
    new Wiring(graph, descriptors.get(0).id(), locations, byVertex).wire();
    for (StreamTask task : created) {
      task.start(userClassLoader);
    }
  }

  private synchronized JobResources resources(JobGraph graph, String jobId, boolean checkpoints) {
    JobResources job = jobs.get(jobId);
    if (job == null || job.released) {
      job = new JobResources(graph, jobId, checkpoints, userClassLoader);
      jobs.put(jobId, job);
    }
    return job;
  }

  private StreamTask createTask(TaskDeploymentDescriptor tdd, JobResources job) {
    ExecutionAttemptId id = tdd.id();
    JobGraph graph = tdd.graph();
    JobVertex vertex = graph.vertices().get(id.vertex());
    TaskInfo info =
        new TaskInfo(
            vertex.getName(),
            id.subtask(),
            vertex.getParallelism(),
            vertex.getMaxParallelism(),
            id.attempt());
    TaskDeploymentDescriptor.Checkpointing settings = tdd.checkpointing();
    TaskCheckpointing checkpointing =
        new TaskCheckpointing(
            settings.enabled(),
            settings.exactlyOnce(),
            job.storage,
            job.snapshotPool,
            new Responder(id), // savepoints are acknowledged with checkpointing off too
            settings.alignment(),
            settings.alignedTimeoutMillis(),
            settings.enabled() ? job.localState(id.vertex(), id.subtask()) : null);
    // Set before the task starts, closed first when it ends.
    TaskMetricsReporter.Registration[] reported = new TaskMetricsReporter.Registration[1];
    TaskListener listener =
        (task, state, cause) -> {
          reported[0].close();
          task.ioMetrics().userMetrics().close();
          tasks.remove(id, task);
          if (dataPlane != null) {
            dataPlane.subtaskEnded(id.jobId(), id.attempt(), id.vertex(), id.subtask());
          }
          jobMaster.taskTerminated(
              id,
              state,
              cause,
              new JobMasterGateway.TaskMetrics(
                  vertex.getName(),
                  task.getNumRecordsIn(),
                  task.getNumRecordsOut(),
                  task.getNumBytesIn(),
                  task.getNumBytesOut()));
          taskEnded(id.jobId());
        };
    synchronized (this) {
      job.running++;
    }
    CreditDepth depth = CreditDepth.of(graph.configuration());
    StreamTask task =
        vertex.isSource()
            ? new SourceStreamTask<>(
                graph, vertex, info, job.timer, listener, checkpointing, tdd.restore())
            : new InputStreamTask(
                graph, vertex, info, job.timer, listener, checkpointing, tdd.restore(), depth);
    reported[0] =
        metrics.register(
            new TaskScope(
                id.jobId(), graph.jobName(), vertex.getName(), id.subtask(), id.attempt()),
            task.ioMetrics());
    return task;
  }

  private synchronized void taskEnded(String jobId) {
    JobResources job = jobs.get(jobId);
    if (job != null && --job.running == 0 && job.released) {
      jobs.remove(jobId);
      job.shutdown();
    }
  }

  /** Where the subtasks of one attempt send their checkpoint acknowledgements. */
  private final class Responder implements TaskCheckpointing.Responder {
    private final ExecutionAttemptId id;

    Responder(ExecutionAttemptId id) {
      this.id = id;
    }

    @Override
    public void acknowledge(
        int vertex,
        int subtask,
        long checkpointId,
        Map<String, OperatorSubtaskState> states,
        CheckpointStatistics.SubtaskCheckpointStatistics statistics) {
      jobMaster.acknowledgeCheckpoint(id, checkpointId, states, statistics);
    }

    @Override
    public void decline(int vertex, int subtask, long checkpointId, Throwable cause) {
      jobMaster.declineCheckpoint(id, checkpointId, cause);
    }

    @Override
    public void reachedEndOfInput(int vertex, int subtask) {
      jobMaster.reachedEndOfInput(id);
    }

    @Override
    public void sinkCommitted(
        int vertex, int subtask, long checkpointId, CheckpointStatistics.SinkCommit commit) {
      jobMaster.sinkCommitted(id, checkpointId, commit);
    }
  }

  /**
   * Wires one channel per producer/consumer pair of every edge (per subtask pair if forward) that
   * has an end here: a local channel when both ends run here, else the producer's or the consumer's
   * end through the data plane. Every consumer numbers its channels in the same order (edges in
   * graph order, producers by index), whether they are local or remote, so that in-flight data
   * restores into the channel it was taken from.
   */
  private final class Wiring {
    private final JobGraph graph;
    private final ExecutionAttemptId attempt;
    private final SubtaskLocations locations;
    private final Map<Integer, Map<Integer, StreamTask>> here;
    private final int bufferSize;
    private final boolean flushAlways;

    Wiring(
        JobGraph graph,
        ExecutionAttemptId attempt,
        SubtaskLocations locations,
        Map<Integer, Map<Integer, StreamTask>> here) {
      this.graph = graph;
      this.attempt = attempt;
      this.locations = locations;
      this.here = here;
      this.bufferSize = (int) graph.configuration().get(CoreOptions.NETWORK_BUFFER_SIZE).bytes();
      Duration bufferTimeout = CoreOptions.bufferTimeout(graph.configuration());
      this.flushAlways = bufferTimeout != null && bufferTimeout.isZero();
    }

    void wire() {
      for (JobVertex vertex : graph.vertices()) {
        for (JobEdge edge : vertex.getOutputs()) {
          wire(edge);
        }
      }
    }

    private StreamTask local(JobVertex vertex, int subtask) {
      Map<Integer, StreamTask> tasksOfVertex = here.get(vertex.getIndex());
      return tasksOfVertex == null ? null : tasksOfVertex.get(subtask);
    }

    @SuppressWarnings({"unchecked", "rawtypes"})
    private void wire(JobEdge edge) {
      StreamEdge streamEdge = edge.streamEdge();
      Partitioning partitioning = streamEdge.partitioning();
      JobVertex producerVertex = edge.producer();
      JobVertex consumerVertex = edge.consumer();
      for (int p = 0; p < producerVertex.getParallelism(); p++) {
        StreamTask producer = local(producerVertex, p);
        int[] consumers =
            consumersOf(
                partitioning, producerVertex.getParallelism(), consumerVertex.getParallelism(), p);
        int first = consumers[0];
        int targets = consumers[1] - consumers[0];
        ResultSubpartition[] channels = new ResultSubpartition[targets];
        String producerName =
            producerVertex.getName() + " (" + (p + 1) + "/" + producerVertex.getParallelism() + ")";
        for (int t = 0; t < targets; t++) {
          int c = first + t;
          StreamTask consumerTask = local(consumerVertex, c);
          if (producer == null && consumerTask == null) {
            continue;
          }
          ChannelId id =
              new ChannelId(
                  attempt.jobId(),
                  attempt.attempt(),
                  streamEdge.id(),
                  producerVertex.getIndex(),
                  p,
                  consumerVertex.getIndex(),
                  c);
          if (consumerTask != null) {
            InputChannel channel =
                ((InputStreamTask) consumerTask)
                    .getInputGate()
                    .addChannel(streamEdge.inputIndex(), producerName);
            if (producer != null) {
              channels[t] = new LocalResultSubpartition(channel, producer.getWaker());
            } else {
              dataPlane.connectInputChannel(
                  id, locations.address(producerVertex.getIndex(), p), channel);
            }
          } else {
            channels[t] =
                dataPlane.createSubpartition(
                    id, locations.address(consumerVertex.getIndex(), c), producer.getWaker());
          }
        }
        if (producer != null) {
          TypeSerializer serializer = streamEdge.recordType().createSerializer();
          ChannelSelector selector = selector(graph, partitioning, targets, p, streamEdge);
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
    }
  }

  /**
   * The consumer subtasks {@code [from, to)} that producer subtask {@code producer} is connected
   * to: pointwise for forward (the one with its index) and rescale (Flink's pointwise distribution,
   * {@link ChannelSelectors#rescaleRange}), so that a consumer has an input channel, and waits for
   * barriers, only from the producers that feed it; all of them for every other partitioning. Each
   * producer's channels are these consumers in order, and each consumer's channels of an edge are
   * its producers in order, on every task executor alike.
   */
  static int[] consumersOf(Partitioning partitioning, int producers, int consumers, int producer) {
    if (partitioning instanceof Partitioning.Forward) {
      return new int[] {producer, producer + 1};
    } else if (partitioning instanceof Partitioning.Rescale) {
      return ChannelSelectors.rescaleRange(producers, consumers, producer);
    }
    return new int[] {0, consumers};
  }

  private static ChannelSelector<?> selector(
      JobGraph graph, Partitioning partitioning, int channels, int producerIndex, StreamEdge edge) {
    if (partitioning instanceof Partitioning.Forward) {
      return ChannelSelectors.forward();
    } else if (partitioning instanceof Partitioning.Rebalance) {
      return ChannelSelectors.rebalance(channels, producerIndex);
    } else if (partitioning instanceof Partitioning.Broadcast) {
      return ChannelSelectors.broadcast();
    } else if (partitioning instanceof Partitioning.Shuffle) {
      return ChannelSelectors.shuffle(channels);
    } else if (partitioning instanceof Partitioning.Global) {
      return ChannelSelectors.global();
    } else if (partitioning instanceof Partitioning.Rescale) {
      return ChannelSelectors.rescale(channels);
    } else if (partitioning instanceof Partitioning.Hash<?, ?> hash) {
      return ChannelSelectors.keyGroup(
          UserCode.copy(hash.keyContext().selector(), "key selector of " + edge.target().getName()),
          edge.target().getMaxParallelism(),
          channels,
          edge.target().getName());
    }
    throw new IllegalArgumentException(
        "Unknown partitioning " + partitioning + " of the edge to " + edge.target().getName());
  }

  @Override
  public void triggerCheckpoint(
      ExecutionAttemptId task, long checkpointId, long timestamp, CheckpointOptions options) {
    StreamTask t = tasks.get(task);
    if (t != null) {
      if (options == null) {
        t.triggerCheckpointAsync(checkpointId, timestamp);
      } else {
        t.triggerCheckpointAsync(checkpointId, timestamp, options);
      }
    }
  }

  @Override
  public void notifyCheckpointComplete(
      ExecutionAttemptId task, long checkpointId, boolean isFinal) {
    StreamTask t = tasks.get(task);
    if (t != null) {
      t.notifyCheckpointCompleteAsync(checkpointId, isFinal);
    }
    TaskLocalStateStore localState = localState(task);
    if (localState != null) {
      localState.confirmCheckpoint(checkpointId);
    }
  }

  @Override
  public void notifyCheckpointAborted(ExecutionAttemptId task, long checkpointId) {
    StreamTask t = tasks.get(task);
    if (t != null) {
      t.notifyCheckpointAbortedAsync(checkpointId);
    }
    TaskLocalStateStore localState = localState(task);
    if (localState != null) {
      localState.abortCheckpoint(checkpointId);
    }
  }

  /** The local copies of snapshots of {@code task}'s subtask, if the job keeps them here. */
  private synchronized TaskLocalStateStore localState(ExecutionAttemptId task) {
    JobResources job = jobs.get(task.jobId());
    return job == null ? null : job.localState.get(List.of(task.vertex(), task.subtask()));
  }

  @Override
  public void cancelTask(ExecutionAttemptId task) {
    cancelTask(task, null);
  }

  /**
   * Stops the subtask as soon as possible, for {@code reason}, which its CANCELED end reports to
   * the job master (null: none).
   */
  public void cancelTask(ExecutionAttemptId task, String reason) {
    StreamTask t = tasks.get(task);
    if (t != null) {
      t.cancel(reason);
    }
  }

  @Override
  public synchronized void releaseJob(String jobId) {
    JobResources job = jobs.get(jobId);
    if (job != null) {
      job.released = true;
      if (job.running == 0) {
        jobs.remove(jobId);
        job.shutdown();
      }
    }
  }

  @Override
  public CompletableFuture<List<SubtaskSample>> sampleSubtasks(String jobId) {
    List<SubtaskSample> samples = new ArrayList<>();
    tasks.forEach(
        (id, task) -> {
          if (id.jobId().equals(jobId)) {
            samples.add(SubtaskSample.of(id, task.getState(), task.ioMetrics()));
          }
        });
    return CompletableFuture.completedFuture(samples);
  }

  /** The subtasks running here now; for tests that look at the runtime. */
  public List<StreamTask> runningTasks() {
    return List.copyOf(tasks.values());
  }

  @Override
  public synchronized void close() {
    for (StreamTask task : tasks.values()) {
      task.cancel();
    }
    for (JobResources job : jobs.values()) {
      job.released = true;
    }
  }
}

package io.weir.runtime.taskexecutor;

import io.weir.api.CheckpointStatistics;
import io.weir.api.config.CoreOptions;
import io.weir.api.functions.TaskInfo;
import io.weir.api.graph.Partitioning;
import io.weir.api.typeutils.TypeSerializer;
import io.weir.runtime.checkpoint.CheckpointOptions;
import io.weir.runtime.checkpoint.OperatorSubtaskState;
import io.weir.runtime.graph.JobEdge;
import io.weir.runtime.graph.JobGraph;
import io.weir.runtime.graph.JobVertex;
import io.weir.runtime.graph.StreamEdge;
import io.weir.runtime.graph.UserCode;
import io.weir.runtime.jobmaster.JobMasterGateway;
import io.weir.runtime.network.ChannelSelector;
import io.weir.runtime.network.ChannelSelectors;
import io.weir.runtime.network.InputChannel;
import io.weir.runtime.network.RecordWriter;
import io.weir.runtime.storage.CheckpointStorage;
import io.weir.runtime.storage.CheckpointStorages;
import io.weir.runtime.task.InputStreamTask;
import io.weir.runtime.task.SourceStreamTask;
import io.weir.runtime.task.StreamTask;
import io.weir.runtime.task.TaskCheckpointing;
import io.weir.runtime.task.TaskListener;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
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
 * <p>The embedded cluster runs one in the same JVM as its job master; a TaskManager process runs
 * one behind the control plane. Thread-safe.
 */
public final class TaskExecutor implements TaskExecutorGateway, AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(TaskExecutor.class);

  private final JobMasterGateway jobMaster;
  private final Map<ExecutionAttemptId, StreamTask> tasks = new ConcurrentHashMap<>();
  private final Map<String, JobResources> jobs = new HashMap<>();

  /** The threads and storage the subtasks of one job share on this task executor. */
  private static final class JobResources {
    final ScheduledExecutorService timer;
    final ExecutorService snapshotPool;
    final CheckpointStorage storage;
    int running;
    boolean released;

    JobResources(JobGraph graph, String jobId, boolean checkpointing) {
      this.timer =
          Executors.newSingleThreadScheduledExecutor(
              r -> daemon(r, "weir-timer-" + graph.jobName()));
      this.snapshotPool =
          Executors.newFixedThreadPool(2, r -> daemon(r, "weir-snapshot-" + graph.jobName()));
      this.storage = checkpointing ? CheckpointStorages.create(graph.configuration(), jobId) : null;
    }

    /** Stops the threads; uploads still running may end first. */
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
    }
  }

  private static Thread daemon(Runnable r, String name) {
    Thread t = new Thread(r, name);
    t.setDaemon(true);
    return t;
  }

  /** A task executor that reports to {@code jobMaster}. */
  public TaskExecutor(JobMasterGateway jobMaster) {
    this.jobMaster = jobMaster;
  }

  @Override
  public void submitTasks(List<TaskDeploymentDescriptor> descriptors) {
    if (descriptors.isEmpty()) {
      return;
    }
    JobGraph graph = descriptors.get(0).graph();
    String jobId = descriptors.get(0).id().jobId();
    JobResources job = resources(graph, jobId, descriptors.get(0).checkpointing().enabled());
    Map<Integer, List<StreamTask>> byVertex = new HashMap<>();
    List<StreamTask> created = new ArrayList<>();
    for (TaskDeploymentDescriptor tdd : descriptors) {
      StreamTask task = createTask(tdd, job);
      byVertex.computeIfAbsent(tdd.id().vertex(), v -> new ArrayList<>()).add(task);
      created.add(task);
      tasks.put(tdd.id(), task);
    }
    wire(graph, byVertex);
    for (StreamTask task : created) {
      task.start();
    }
  }

  private synchronized JobResources resources(JobGraph graph, String jobId, boolean checkpoints) {
    JobResources job = jobs.get(jobId);
    if (job == null || job.released) {
      job = new JobResources(graph, jobId, checkpoints);
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
            graph.maxParallelism(),
            id.attempt());
    TaskDeploymentDescriptor.Checkpointing settings = tdd.checkpointing();
    TaskCheckpointing checkpointing =
        new TaskCheckpointing(
            settings.enabled(),
            settings.exactlyOnce(),
            job.storage,
            job.snapshotPool,
            settings.enabled() ? new Responder(id) : null,
            settings.alignment(),
            settings.alignedTimeoutMillis());
    TaskListener listener =
        (task, state, cause) -> {
          tasks.remove(id, task);
          jobMaster.taskTerminated(
              id,
              state,
              cause,
              new JobMasterGateway.TaskMetrics(
                  vertex.getName(), task.getNumRecordsIn(), task.getNumRecordsOut()));
          taskEnded(id.jobId());
        };
    synchronized (this) {
      job.running++;
    }
    int credits = graph.configuration().get(CoreOptions.BUFFERS_PER_CHANNEL);
    return vertex.isSource()
        ? new SourceStreamTask<>(
            graph, vertex, info, job.timer, listener, checkpointing, tdd.restore())
        : new InputStreamTask(
            graph, vertex, info, job.timer, listener, checkpointing, tdd.restore(), credits);
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
  }

  /** Wires one channel per producer/consumer pair of every edge (per subtask pair if forward). */
  private static void wire(JobGraph graph, Map<Integer, List<StreamTask>> byVertex) {
    int bufferSize = (int) graph.configuration().get(CoreOptions.NETWORK_BUFFER_SIZE).bytes();
    boolean flushAlways = graph.configuration().get(CoreOptions.BUFFER_TIMEOUT).isZero();
    for (JobVertex vertex : graph.vertices()) {
      for (JobEdge edge : vertex.getOutputs()) {
        List<StreamTask> producers = byVertex.get(edge.producer().getIndex());
        List<StreamTask> consumers = byVertex.get(edge.consumer().getIndex());
        if (producers != null && consumers != null) {
          wire(graph, edge, producers, consumers, bufferSize, flushAlways);
        }
      }
    }
  }

  @SuppressWarnings({"unchecked", "rawtypes"})
  private static void wire(
      JobGraph graph,
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
      ChannelSelector selector = selector(graph, partitioning, channels.length, p, streamEdge);
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

  private static ChannelSelector<?> selector(
      JobGraph graph, Partitioning partitioning, int channels, int producerIndex, StreamEdge edge) {
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
  }

  @Override
  public void notifyCheckpointAborted(ExecutionAttemptId task, long checkpointId) {
    StreamTask t = tasks.get(task);
    if (t != null) {
      t.notifyCheckpointAbortedAsync(checkpointId);
    }
  }

  @Override
  public void cancelTask(ExecutionAttemptId task) {
    StreamTask t = tasks.get(task);
    if (t != null) {
      t.cancel();
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

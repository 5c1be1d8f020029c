package io.weir.runtime.local;

import io.weir.api.JobClient;
import io.weir.api.JobExecutionException;
import io.weir.api.JobExecutionResult;
import io.weir.api.JobID;
import io.weir.api.JobStatus;
import io.weir.api.config.CoreOptions;
import io.weir.api.functions.TaskInfo;
import io.weir.api.graph.Partitioning;
import io.weir.api.graph.SourceTransformation;
import io.weir.api.source.Source;
import io.weir.api.typeutils.TypeSerializer;
import io.weir.runtime.graph.JobEdge;
import io.weir.runtime.graph.JobGraph;
import io.weir.runtime.graph.JobVertex;
import io.weir.runtime.graph.StreamEdge;
import io.weir.runtime.graph.UserCode;
import io.weir.runtime.network.ChannelSelector;
import io.weir.runtime.network.ChannelSelectors;
import io.weir.runtime.network.InputChannel;
import io.weir.runtime.network.RecordWriter;
import io.weir.runtime.task.InputStreamTask;
import io.weir.runtime.task.SourceStreamTask;
import io.weir.runtime.task.StreamTask;
import io.weir.runtime.task.TaskState;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
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
  private final List<StreamTask> tasks = new ArrayList<>();
  private final CompletableFuture<JobExecutionResult> result = new CompletableFuture<>();
  private final CompletableFuture<Void> terminated = new CompletableFuture<>();
  private volatile JobStatus status = JobStatus.CREATED;
  private Throwable failure;
  private boolean cancelRequested;
  private int terminatedTasks;

  LocalJob(JobGraph graph) {
    this.graph = graph;
    this.timer =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "weir-timer-" + graph.jobName());
              t.setDaemon(true);
              return t;
            });
  }

  void start() {
    try {
      deploy();
    } catch (Exception e) {
      timer.shutdownNow();
      throw e instanceof RuntimeException re ? re : new IllegalStateException(e);
    }
    status = JobStatus.RUNNING;
    LOG.info("Job '{}' ({}) starts {} tasks", graph.jobName(), jobId, tasks.size());
    for (StreamTask task : tasks) {
      task.start();
    }
  }

  private void deploy() {
    int credits = graph.configuration().get(CoreOptions.BUFFERS_PER_CHANNEL);
    int bufferSize = (int) graph.configuration().get(CoreOptions.NETWORK_BUFFER_SIZE).bytes();
    boolean flushAlways = graph.configuration().get(CoreOptions.BUFFER_TIMEOUT).isZero();
    Map<JobVertex, List<StreamTask>> subtasks = new LinkedHashMap<>();
    for (JobVertex vertex : graph.vertices()) {
      List<StreamTask> list = new ArrayList<>();
      List<List<Object>> splits = vertex.isSource() ? assignSplits(vertex) : null;
      for (int i = 0; i < vertex.getParallelism(); i++) {
        TaskInfo info =
            new TaskInfo(vertex.getName(), i, vertex.getParallelism(), graph.maxParallelism(), 0);
        StreamTask task =
            vertex.isSource()
                ? new SourceStreamTask<>(
                    graph, vertex, info, timer, this::onTaskTerminated, splits.get(i))
                : new InputStreamTask(graph, vertex, info, timer, this::onTaskTerminated, credits);
        list.add(task);
        tasks.add(task);
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
  }

  @SuppressWarnings({"unchecked", "rawtypes"})
  private List<List<Object>> assignSplits(JobVertex vertex) {
    Source<?, ?> source =
        ((SourceTransformation<?>) vertex.getHead().getTransformation()).getSource();
    int parallelism = vertex.getParallelism();
    List<Object> all;
    try {
      all = (List<Object>) (List) source.createSplits(parallelism);
    } catch (Exception e) {
      throw new IllegalStateException(
          "Source '" + vertex.getHead().getName() + "' could not create its splits: " + e, e);
    }
    List<List<Object>> perSubtask = new ArrayList<>();
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

  private synchronized void onTaskTerminated(StreamTask task, TaskState state, Throwable cause) {
    terminatedTasks++;
    if (state == TaskState.FAILED && failure == null && !cancelRequested) {
      failure = cause;
      status = JobStatus.FAILING;
      LOG.warn("Job '{}' fails: {}", graph.jobName(), cause.getMessage());
      cancelAll();
    }
    if (terminatedTasks == tasks.size()) {
      finishJob();
    }
  }

  private void cancelAll() {
    for (StreamTask t : tasks) {
      t.cancel();
    }
  }

  private void finishJob() {
    timer.shutdownNow();
    Duration runtime = Duration.ofNanos(System.nanoTime() - startNanos);
    if (failure != null) {
      status = JobStatus.FAILED;
      result.completeExceptionally(
          new JobExecutionException(
              jobId,
              "Job '" + graph.jobName() + "' (" + jobId + ") failed: " + failure.getMessage(),
              failure));
    } else if (cancelRequested) {
      status = JobStatus.CANCELED;
      result.completeExceptionally(
          new JobExecutionException(
              jobId, "Job '" + graph.jobName() + "' (" + jobId + ") was cancelled", null));
    } else {
      status = JobStatus.FINISHED;
      result.complete(new JobExecutionResult(jobId, runtime, metrics()));
    }
    terminated.complete(null);
    LOG.info("Job '{}' ({}) {} after {} ms", graph.jobName(), jobId, status, runtime.toMillis());
  }

  private Map<String, Long> metrics() {
    Map<String, Long> metrics = new HashMap<>();
    for (StreamTask task : tasks) {
      String name = task.getVertex().getName();
      metrics.merge(name + ".numRecordsIn", task.getNumRecordsIn(), Long::sum);
      metrics.merge(name + ".numRecordsOut", task.getNumRecordsOut(), Long::sum);
    }
    return metrics;
  }

  /** The deployed subtasks; for tests that look at the runtime's insides. */
  List<StreamTask> tasks() {
    return tasks;
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
        if (failure == null) {
          status = JobStatus.CANCELLING;
        }
        cancelAll();
      }
    }
    return terminated;
  }
}

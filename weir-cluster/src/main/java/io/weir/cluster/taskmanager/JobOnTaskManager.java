package io.weir.cluster.taskmanager;

import io.weir.api.CheckpointStatistics;
import io.weir.cluster.client.JobClassLoader;
import io.weir.cluster.client.JobProgram;
import io.weir.cluster.rpc.AcknowledgeCheckpoint;
import io.weir.cluster.rpc.DeclineCheckpoint;
import io.weir.cluster.rpc.EndOfInput;
import io.weir.cluster.rpc.JobManagerServiceGrpc;
import io.weir.cluster.rpc.JobPayload;
import io.weir.cluster.rpc.Messages;
import io.weir.cluster.rpc.SinkCommitReport;
import io.weir.cluster.rpc.TaskDeployment;
import io.weir.cluster.rpc.TaskStateUpdate;
import io.weir.cluster.rpc.VertexLocations;
import io.weir.runtime.checkpoint.BarrierHandler;
import io.weir.runtime.checkpoint.CheckpointOptions;
import io.weir.runtime.checkpoint.OperatorSubtaskState;
import io.weir.runtime.checkpoint.TaskRestore;
import io.weir.runtime.classloading.TemporaryClassLoaderContext;
import io.weir.runtime.graph.JobGraph;
import io.weir.runtime.graph.PlanDescription;
import io.weir.runtime.jobmaster.JobMasterGateway;
import io.weir.runtime.metrics.TaskMetricsReporter;
import io.weir.runtime.recovery.NonRecoverable;
import io.weir.runtime.storage.CheckpointStateReader;
import io.weir.runtime.storage.CheckpointStorages;
import io.weir.runtime.storage.DeploymentSerializer;
import io.weir.runtime.storage.StorageReference;
import io.weir.runtime.task.TaskState;
import io.weir.runtime.taskexecutor.DataPlane;
import io.weir.runtime.taskexecutor.ExecutionAttemptId;
import io.weir.runtime.taskexecutor.SubtaskLocations;
import io.weir.runtime.taskexecutor.TaskDeploymentDescriptor;
import io.weir.runtime.taskexecutor.TaskExecutor;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One job on a TaskManager: its class loader over the job's jar, its plan (rebuilt from the job's
 * program inside that class loader), and a {@link TaskExecutor} that runs its subtasks and reports
 * through the control plane. That class loader is the context class loader of every thread that
 * runs the job's code here (see {@link TaskExecutor}). Closed, with its class loader, once the job
 * is released and its last subtask here ended.
 */
final class JobOnTaskManager implements JobMasterGateway {

  private static final Logger LOG = LoggerFactory.getLogger(JobOnTaskManager.class);

  private final String jobId;
  private final JobClassLoader loader;
  private final JobGraph graph;
  private final TaskExecutor executor;

  /** The leader's stub: whichever JobManager leads when a report goes out. */
  private final Supplier<JobManagerServiceGrpc.JobManagerServiceBlockingStub> jobManager;

  private final ExecutorService outbox;
  private final Consumer<JobOnTaskManager> onClosed;
  private final Set<ExecutionAttemptId> running = ConcurrentHashMap.newKeySet();

  /** Subtasks of the newest attempt here that ended. */
  private final Set<ExecutionAttemptId> ended = ConcurrentHashMap.newKeySet();

  /**
   * Reports held back while the job waits for a new leader to adopt it (high availability), in
   * order; null while a leader has the job.
   */
  private List<Runnable> held;

  /** The epoch of the leader lost when the job was held. */
  private long heldSince;

  private final Map<StorageReference, CheckpointStateReader> storages = new HashMap<>();
  private boolean released;
  private boolean closed;

  /**
   * Loads the job: its class loader over {@code jar} and its plan.
   *
   * @throws Exception naming the jar and entry class when the plan cannot be rebuilt
   */
  JobOnTaskManager(
      JobPayload payload,
      Path jar,
      Supplier<JobManagerServiceGrpc.JobManagerServiceBlockingStub> jobManager,
      ExecutorService outbox,
      DataPlane dataPlane,
      TaskMetricsReporter metrics,
      Consumer<JobOnTaskManager> onClosed)
      throws Exception {
    this.jobId = payload.getJobId();
    this.jobManager = jobManager;
    this.outbox = outbox;
    this.onClosed = onClosed;
    this.loader =
        new JobClassLoader(
            jar,
            JobOnTaskManager.class.getClassLoader(),
            payload.getJobName() + " (" + jobId + ")");
    JobProgram program =
        new JobProgram(
            payload.getJarId(),
            payload.getEntryClass(),
            payload.getArgsList(),
            payload.getConfigurationMap());
    JobGraph[] captured = new JobGraph[1];
    try {
      program.run(
          loader,
          pipeline -> {
            captured[0] = JobProgram.buildGraph(pipeline, program.settings());
            throw new JobProgram.PlanCaptured();
          },
          60_000,
          Object.class);
    } catch (JobProgram.PlanCaptured expected) {
      // the plan is what we wanted
    } catch (Exception e) {
      loader.close();
      throw e;
    }
    if (captured[0] == null) {
      loader.close();
      throw new IllegalStateException(
          "The program " + payload.getEntryClass() + " of job " + jobId + " built no plan here");
    }
    if (payload.getPlanCount() > 0) {
      Optional<String> difference =
          PlanDescription.firstDifference(payload.getPlanList(), PlanDescription.of(captured[0]));
      if (difference.isPresent()) {
        loader.close();
        throw new PlanMismatchException(
            "The main class "
                + payload.getEntryClass()
                + " of job '"
                + payload.getJobName()
                + "' ("
                + jobId
                + ") built another plan on this TaskManager than on the JobManager: "
                + difference.get()
                + ". A job's main must build the same plan in every process: take names,"
                + " parallelism and the operators to use from the program's arguments or"
                + " settings, not from the clock, a random number or this machine's environment");
      }
    }
    this.graph = captured[0];
    this.executor = new TaskExecutor(this, dataPlane, metrics, loader);
    LOG.info("Job '{}' ({}) loaded from jar {}", graph.jobName(), jobId, payload.getJarId());
  }

  /** The plan rebuilt here is not the JobManager's: every attempt would meet it again. */
  static final class PlanMismatchException extends IllegalStateException implements NonRecoverable {
    private static final long serialVersionUID = 1L;

    PlanMismatchException(String message) {
      super(message);
    }
  }

  String jobId() {
    return jobId;
  }

  List<ExecutionAttemptId> running() {
    return List.copyOf(running);
  }

  /** Network buffers the outputs of the subtasks running here allocated. */
  long outputBuffers() {
    long buffers = 0;
    for (var task : executor.runningTasks()) {
      for (var writer : task.getWriters()) {
        buffers += writer.getBuffersCreated();
      }
    }
    return buffers;
  }

  /** The counters of the job's subtasks running here now. */
  List<io.weir.runtime.taskexecutor.SubtaskSample> sampleSubtasks() {
    return executor.sampleSubtasks(jobId).join(); // answered at once: read in this process
  }

  /** The job's network buffer size, in bytes. */
  long bufferSize() {
    return graph.configuration().get(io.weir.api.config.CoreOptions.NETWORK_BUFFER_SIZE).bytes();
  }

  /**
   * Deploys and starts the tasks. The control plane's thread reads their restore with the job's
   * class loader as context class loader: checkpoint storage may be a file system of the job's jar.
   */
  void submit(List<TaskDeployment> deployments, List<VertexLocations> where) throws IOException {
    try (var ignored = TemporaryClassLoaderContext.of(loader)) {
      deploy(deployments, where);
    }
  }

  private void deploy(List<TaskDeployment> deployments, List<VertexLocations> where)
      throws IOException {
    Map<Integer, List<String>> byVertex = new HashMap<>();
    for (VertexLocations v : where) {
      byVertex.put(v.getVertex(), List.copyOf(v.getAddressesList()));
    }
    SubtaskLocations locations = new SubtaskLocations(byVertex);
    List<TaskDeploymentDescriptor> descriptors = new ArrayList<>();
    for (TaskDeployment d : deployments) {
      ExecutionAttemptId id = Messages.fromProto(d.getId());
      TaskRestore restore =
          DeploymentSerializer.deserializeRestore(d.getRestore().toByteArray(), storage(d));
      descriptors.add(
          new TaskDeploymentDescriptor(
              id,
              graph,
              new TaskDeploymentDescriptor.Checkpointing(
                  d.getCheckpointingEnabled(),
                  d.getExactlyOnce(),
                  BarrierHandler.Alignment.valueOf(d.getAlignment()),
                  d.getAlignedTimeoutMillis()),
              restore,
              locations));
    }
    synchronized (this) {
      released = false;
      int attempt = descriptors.get(0).id().attempt();
      ended.removeIf(t -> t.attempt() < attempt);
      descriptors.forEach(tdd -> running.add(tdd.id()));
    }
    LOG.info("Starting {} tasks of job '{}' ({})", descriptors.size(), graph.jobName(), jobId);
    executor.submitTasks(descriptors);
  }

  private synchronized CheckpointStateReader storage(TaskDeployment d) throws IOException {
    StorageReference reference =
        switch (d.getRestoreStorage()) {
          case NONE -> null;
          case JOB -> StorageReference.JOB_STORAGE;
          case EXTERNAL -> StorageReference.checkpoint(d.getRestorePointer());
          case UNRECOGNIZED -> throw new IOException("unknown restore storage in the deployment");
        };
    if (reference == null) {
      return null;
    }
    CheckpointStateReader reader = storages.get(reference);
    if (reader == null) {
      reader = CheckpointStorages.reader(reference, graph.configuration(), jobId);
      storages.put(reference, reader);
    }
    return reader;
  }

  /** {@code options} null: a checkpoint, aligned as the task is configured (an older sender). */
  void trigger(
      ExecutionAttemptId id, long checkpointId, long timestamp, CheckpointOptions options) {
    executor.triggerCheckpoint(id, checkpointId, timestamp, options);
  }

  void notify(ExecutionAttemptId id, long checkpointId, boolean complete, boolean isFinal) {
    if (complete) {
      executor.notifyCheckpointComplete(id, checkpointId, isFinal);
    } else {
      executor.notifyCheckpointAborted(id, checkpointId);
    }
  }

  void cancel(ExecutionAttemptId id) {
    executor.cancelTask(id);
  }

  /**
   * Cancels every task (the JobManager is lost or forgot this TaskManager, or the TaskManager
   * stops), for {@code reason}, which their CANCELED ends report.
   */
  void cancelAll(String reason) {
    for (ExecutionAttemptId id : running()) {
      executor.cancelTask(id, reason);
    }
  }

  /**
   * The leader is lost (high availability): the tasks keep running and their reports are held back
   * until a new leader adopts the job ({@link #adopt}) or the grace period ends ({@link
   * #stopHolding}). False when the job is held already.
   *
   * @param lostEpoch the epoch of the leader that was lost
   */
  synchronized boolean hold(long lostEpoch) {
    if (held != null) {
      return false;
    }
    held = new ArrayList<>();
    heldSince = lostEpoch;
    return true;
  }

  /** Whether the job waits for a new leader to adopt it. */
  synchronized boolean isHeld() {
    return held != null;
  }

  /** The epoch of the leader lost when the job was held. */
  synchronized long heldSince() {
    return heldSince;
  }

  /** Subtasks of the newest attempt here that ended. */
  Set<ExecutionAttemptId> ended() {
    return Set.copyOf(ended);
  }

  /**
   * A new leader takes over the held job's attempt {@code attempt}: the held reports go out to it,
   * in order, and so does every report from now on. False when the job is not held (the grace
   * period ended, or it was never held) or runs another attempt here.
   */
  synchronized boolean adopt(int attempt) {
    if (held == null || running.stream().anyMatch(t -> t.attempt() != attempt)) {
      return false;
    }
    held.forEach(outbox::execute);
    held = null;
    return true;
  }

  /**
   * No new leader adopts the job held since the leader of {@code lostEpoch} was lost: true if it is
   * held since then, and its held reports are dropped.
   */
  synchronized boolean stopHolding(long lostEpoch) {
    if (held == null || heldSince != lostEpoch) {
      return false;
    }
    held = null;
    return true;
  }

  void release() {
    LOG.info("Releasing job '{}' ({}); {} tasks still run", graph.jobName(), jobId, running.size());
    executor.releaseJob(jobId);
    synchronized (this) {
      released = true;
    }
    closeIfDone();
  }

  private void closeIfDone() {
    synchronized (this) {
      if (!released || !running.isEmpty() || closed) {
        return;
      }
      closed = true;
    }
    executor.close();
    try {
      loader.close();
    } catch (IOException e) {
      LOG.debug("Closing the class loader of job {} failed", jobId, e);
    }
    LOG.info("Job '{}' ({}) released: its class loader is closed", graph.jobName(), jobId);
    onClosed.accept(this);
  }

  // ------------------------------------------------------------ reports, in order, to the
  // JobManager

  private void send(String what, Runnable call) {
    Runnable report =
        () -> {
          try {
            call.run();
          } catch (RuntimeException e) {
            LOG.warn("Could not tell the JobManager {}: {}", what, e.getMessage());
          }
        };
    synchronized (this) {
      if (held != null) {
        held.add(report); // for the leader that adopts the job
        return;
      }
    }
    outbox.execute(report);
  }

  @Override
  public void acknowledgeCheckpoint(
      ExecutionAttemptId task,
      long checkpointId,
      Map<String, OperatorSubtaskState> states,
      CheckpointStatistics.SubtaskCheckpointStatistics statistics) {
    AcknowledgeCheckpoint ack =
        AcknowledgeCheckpoint.newBuilder()
            .setTask(Messages.toProto(task))
            .setCheckpointId(checkpointId)
            .setStates(
                com.google.protobuf.ByteString.copyFrom(
                    DeploymentSerializer.serializeStates(states)))
            .setStatistics(Messages.toProto(statistics))
            .build();
    send("of checkpoint " + checkpointId + " by " + task, () -> jobManager.get().acknowledge(ack));
  }

  @Override
  public void declineCheckpoint(ExecutionAttemptId task, long checkpointId, Throwable cause) {
    DeclineCheckpoint decline =
        DeclineCheckpoint.newBuilder()
            .setTask(Messages.toProto(task))
            .setCheckpointId(checkpointId)
            .setCause(Messages.toProto(cause))
            .build();
    send(
        "that " + task + " declined checkpoint " + checkpointId,
        () -> jobManager.get().decline(decline));
  }

  @Override
  public void reachedEndOfInput(ExecutionAttemptId task) {
    EndOfInput end = EndOfInput.newBuilder().setTask(Messages.toProto(task)).build();
    send(
        "that " + task + " reached the end of its input",
        () -> jobManager.get().reachedEndOfInput(end));
  }

  @Override
  public void sinkCommitted(
      ExecutionAttemptId task, long checkpointId, CheckpointStatistics.SinkCommit commit) {
    SinkCommitReport report =
        SinkCommitReport.newBuilder()
            .setTask(Messages.toProto(task))
            .setCheckpointId(checkpointId)
            .setNotifiedTimestamp(commit.notifiedTimestamp())
            .setDurationMillis(commit.durationMillis())
            .setFailure(commit.failure() == null ? "" : commit.failure())
            .build();
    send(
        "the sink commit of checkpoint " + checkpointId + " by " + task,
        () -> jobManager.get().reportSinkCommit(report));
  }

  @Override
  public void taskTerminated(
      ExecutionAttemptId task, TaskState state, Throwable failure, TaskMetrics metrics) {
    TaskStateUpdate.Builder update =
        TaskStateUpdate.newBuilder()
            .setTask(Messages.toProto(task))
            .setState(Messages.toProto(state))
            .setVertexName(metrics.vertexName())
            .setRecordsIn(metrics.recordsIn())
            .setRecordsOut(metrics.recordsOut())
            .setBytesIn(metrics.bytesIn())
            .setBytesOut(metrics.bytesOut());
    if (failure != null) {
      update.setFailure(Messages.toProto(failure));
    }
    LOG.info("Task {} of job '{}' is {}", task, graph.jobName(), state);
    TaskStateUpdate message = update.build();
    send("that " + task + " is " + state, () -> jobManager.get().updateTaskState(message));
    running.remove(task);
    ended.add(task);
    closeIfDone();
  }
}

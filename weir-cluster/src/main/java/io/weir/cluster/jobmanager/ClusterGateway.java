package io.weir.cluster.jobmanager;

import io.grpc.Status;
import io.weir.cluster.client.JobProgram;
import io.weir.cluster.rpc.SubmitTasksRequest;
import io.weir.cluster.rpc.VertexLocations;
import io.weir.runtime.checkpoint.CheckpointOptions;
import io.weir.runtime.graph.JobGraph;
import io.weir.runtime.graph.JobVertex;
import io.weir.runtime.jobmaster.JobMasterGateway;
import io.weir.runtime.recovery.NonRecoverable;
import io.weir.runtime.task.TaskState;
import io.weir.runtime.taskexecutor.ExecutionAttemptId;
import io.weir.runtime.taskexecutor.RunningAttempt;
import io.weir.runtime.taskexecutor.SubtaskSample;
import io.weir.runtime.taskexecutor.TaskDeploymentDescriptor;
import io.weir.runtime.taskexecutor.TaskExecutorGateway;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The job master's {@link TaskExecutorGateway} in a cluster: places each attempt on a TaskManager
 * with enough free slots, sends deployments, triggers, notifications and cancellations over the
 * control plane (the calls themselves are {@link TaskManagerCalls}), and turns a lost TaskManager
 * into failed tasks. What TaskManagers report comes in through {@link #reported}, which forwards
 * each task's end to the job master once, and records a failure in the job's {@link
 * ExceptionHistory}.
 *
 * <p>Reports it makes itself (a task that never reached a TaskManager, a TaskManager lost) go to
 * the job master from its own thread, never from inside a call of the job master.
 */
public final class ClusterGateway implements TaskExecutorGateway {

  private static final Logger LOG = LoggerFactory.getLogger(ClusterGateway.class);

  private final JobProgram program;
  private final TaskManagerRegistry registry;
  private final TaskManagerCalls calls;
  private final long slotWaitMillis;

  /** High availability: what the TaskManagers offer of a job taken over from a lost leader. */
  private final TaskOffers offers;

  private final JobMasterGateway jobMaster;
  private final ExecutorService reporter;

  /** Where each task of the current attempts runs; absent while it waits for slots. */
  private final Map<ExecutionAttemptId, TaskManagerRegistry.TaskManager> placed =
      new ConcurrentHashMap<>();

  /** Tasks deployed whose end the job master has not heard yet. */
  private final Set<ExecutionAttemptId> open = ConcurrentHashMap.newKeySet();

  /** Open tasks per allocation, to free its slots when the last ends. */
  private final Map<String, Set<ExecutionAttemptId>> allocations = new HashMap<>();

  /**
   * Calls for tasks whose deployment is still under way, sent once their TaskManager has them (a
   * checkpoint triggered meanwhile is only late, not lost).
   */
  private final Map<ExecutionAttemptId, List<Runnable>> waiting = new HashMap<>();

  private final Set<String> hosts = ConcurrentHashMap.newKeySet();

  /** Vertex names by index, for the exception history. */
  private volatile List<String> vertexNames = List.of();

  private final ExceptionHistory exceptions = new ExceptionHistory();
  private volatile String jobName = "";

  ClusterGateway(
      JobProgram program,
      TaskManagerRegistry registry,
      long slotWaitMillis,
      Duration adoptionWait,
      JobMasterGateway jobMaster) {
    this.program = program;
    this.registry = registry;
    this.calls = new TaskManagerCalls(registry);
    this.slotWaitMillis = slotWaitMillis;
    this.offers = new TaskOffers(registry, adoptionWait);
    this.jobMaster = jobMaster;
    this.reporter =
        Executors.newSingleThreadExecutor(
            r -> {
              Thread t = new Thread(r, "weir-gateway-reports");
              t.setDaemon(true);
              return t;
            });
    registry.onLost(this::taskManagerLost);
  }

  private static String allocationId(ExecutionAttemptId id) {
    return id.jobId() + "#" + id.attempt();
  }

  @Override
  public void submitTasks(List<TaskDeploymentDescriptor> descriptors) {
    if (descriptors.isEmpty()) {
      return;
    }
    TaskDeploymentDescriptor first = descriptors.get(0);
    jobName = first.graph().jobName();
    vertexNames = first.graph().vertices().stream().map(JobVertex::getName).toList();
    String allocation = allocationId(first.id());
    int slots = SlotPlacement.slotsFor(first.graph());
    synchronized (this) {
      Set<ExecutionAttemptId> ids = ConcurrentHashMap.newKeySet();
      for (TaskDeploymentDescriptor tdd : descriptors) {
        ids.add(tdd.id());
        open.add(tdd.id());
        // Triggers and notifications wait until the task is deployed, through the slot wait.
        waiting.put(tdd.id(), new ArrayList<>());
      }
      allocations.put(allocation, ids);
    }
    LOG.info("Job '{}' attempt {} asks for {} slots", jobName, first.id().attempt(), slots);
    var unused =
        registry
            .requestSlots(allocation, jobName, slots, slotWaitMillis)
            .whenComplete(
                (placement, failure) -> {
                  if (failure != null) {
                    synchronized (this) {
                      descriptors.forEach(tdd -> waiting.remove(tdd.id()));
                    }
                    failTasks(descriptors, failure, "-");
                    return;
                  }
                  deploy(placement, descriptors);
                });
  }

  /**
   * Deploys the attempt onto its slots (see {@link SlotPlacement}): each TaskManager receives its
   * share and, when the attempt spans several, where all the other subtasks run (see {@link
   * SubmitTasksRequests}).
   */
  private void deploy(
      SlotPlacement<TaskManagerRegistry.TaskManager> placement,
      List<TaskDeploymentDescriptor> descriptors) {
    List<VertexLocations> locations =
        SubmitTasksRequests.locations(placement, descriptors.get(0).graph());
    placement
        .byTaskManager(descriptors)
        .forEach(
            (tm, share) -> deploy(tm, share, SubmitTasksRequests.of(program, share, locations)));
  }

  private void deploy(
      TaskManagerRegistry.TaskManager tm,
      List<TaskDeploymentDescriptor> descriptors,
      SubmitTasksRequest request) {
    List<TaskDeploymentDescriptor> live = new ArrayList<>();
    synchronized (this) {
      // Under the lock: a task cancelled while it waited for slots is never deployed.
      for (TaskDeploymentDescriptor tdd : descriptors) {
        if (open.contains(tdd.id())) {
          placed.put(tdd.id(), tm);
          live.add(tdd);
        } else {
          waiting.remove(tdd.id());
        }
      }
    }
    if (live.isEmpty()) {
      return;
    }
    hosts.add(tm.id);
    if (tm.lost) {
      failTasks(live, new TaskManagerLostException(tm, "it was lost before deployment"), tm.id);
      return;
    }
    LOG.info(
        "Deploying {} tasks of job '{}' attempt {} to {}",
        live.size(),
        jobName,
        descriptors.get(0).id().attempt(),
        tm);
    TaskManagerRegistry.whenDone(
        tm.stub.submitTasks(request),
        () -> {
          List<Runnable> late = new ArrayList<>();
          synchronized (this) {
            for (TaskDeploymentDescriptor tdd : live) {
              List<Runnable> calls = waiting.remove(tdd.id());
              if (calls != null) {
                late.addAll(calls);
              }
            }
          }
          late.forEach(Runnable::run);
        },
        cause -> {
          synchronized (this) {
            live.forEach(tdd -> waiting.remove(tdd.id()));
          }
          Status status = Status.fromThrowable(cause);
          String message =
              "Deploying to "
                  + tm
                  + " failed: "
                  + (status.getDescription() != null
                      ? status.getDescription()
                      : cause.getMessage());
          failTasks(
              live,
              status.getCode() == Status.Code.INVALID_ARGUMENT
                  ? new DeploymentRefusedException(message, cause)
                  : new IllegalStateException(message, cause),
              tm.id);
        });
  }

  /**
   * A TaskManager refused a deployment for a reason every attempt would meet again (the plan it
   * rebuilt differs from the JobManager's): the job fails at once instead of restarting.
   */
  static final class DeploymentRefusedException extends IllegalStateException
      implements NonRecoverable {
    private static final long serialVersionUID = 1L;

    DeploymentRefusedException(String message, Throwable cause) {
      super(message, cause);
    }
  }

  /** Reports {@code tasks} failed, from the reporter thread. */
  private void failTasks(List<TaskDeploymentDescriptor> tasks, Throwable cause, String location) {
    reporter.execute(
        () -> {
          for (TaskDeploymentDescriptor tdd : tasks) {
            end(
                tdd.id(),
                TaskState.FAILED,
                cause,
                location,
                tdd.graph().vertices().get(tdd.id().vertex()).getName());
          }
        });
  }

  private void taskManagerLost(TaskManagerRegistry.TaskManager tm, String reason) {
    List<ExecutionAttemptId> affected = new ArrayList<>();
    for (Map.Entry<ExecutionAttemptId, TaskManagerRegistry.TaskManager> e : placed.entrySet()) {
      if (e.getValue() == tm && open.contains(e.getKey())) {
        affected.add(e.getKey());
      }
    }
    if (affected.isEmpty()) {
      return;
    }
    // The tasks end here, on the caller's thread, before the registry forgets the TaskManager
    // (see TaskManagerRegistry#lost): its own report of their end, which may follow at once, is
    // then late and cannot take the place of the reason. The job master hears of it in order.
    TaskManagerLostException cause = new TaskManagerLostException(tm, reason);
    List<Runnable> terminations = new ArrayList<>();
    for (ExecutionAttemptId id : affected) {
      var metrics = new JobMasterGateway.TaskMetrics(vertexName(id), 0, 0, 0, 0);
      if (close(id, TaskState.FAILED, cause, tm.id, metrics)) {
        terminations.add(() -> jobMaster.taskTerminated(id, TaskState.FAILED, cause, metrics));
      }
    }
    reporter.execute(() -> terminations.forEach(Runnable::run));
  }

  private String vertexName(ExecutionAttemptId id) {
    List<String> names = vertexNames;
    return id.vertex() < names.size() ? names.get(id.vertex()) : "vertex " + id.vertex();
  }

  /** What a TaskManager reported about a task's end. */
  void reported(
      ExecutionAttemptId id, TaskState state, Throwable failure, JobMasterGateway.TaskMetrics m) {
    TaskManagerRegistry.TaskManager tm = placed.get(id);
    endWith(id, state, failure, tm == null ? "-" : tm.id, m);
  }

  private void end(
      ExecutionAttemptId id, TaskState state, Throwable failure, String location, String name) {
    endWith(id, state, failure, location, new JobMasterGateway.TaskMetrics(name, 0, 0, 0, 0));
  }

  private void endWith(
      ExecutionAttemptId id,
      TaskState state,
      Throwable failure,
      String location,
      JobMasterGateway.TaskMetrics metrics) {
    if (close(id, state, failure, location, metrics)) {
      jobMaster.taskTerminated(id, state, failure, metrics);
    }
  }

  /**
   * The bookkeeping of a task's end: false if it had ended already (e.g. reported by its
   * TaskManager after it was declared lost).
   */
  private boolean close(
      ExecutionAttemptId id,
      TaskState state,
      Throwable failure,
      String location,
      JobMasterGateway.TaskMetrics metrics) {
    synchronized (this) {
      if (!open.remove(id)) {
        return false;
      }
      placed.remove(id);
      waiting.remove(id);
    }
    if (state == TaskState.FAILED && failure != null) {
      exceptions.taskFailed(id, failure, metrics.vertexName(), location);
    }
    String allocation = allocationId(id);
    boolean allEnded;
    synchronized (this) {
      Set<ExecutionAttemptId> ids = allocations.get(allocation);
      allEnded = ids != null && ids.remove(id) && ids.isEmpty();
      if (allEnded) {
        allocations.remove(allocation);
      }
    }
    if (allEnded) {
      registry.cancelRequest(allocation);
      registry.release(allocation);
    }
    return true;
  }

  /** Whether {@code id} is a task of this job not yet ended. */
  boolean isOpen(ExecutionAttemptId id) {
    return open.contains(id);
  }

  @Override
  public void attemptFailed(int attempt, Throwable cause) {
    exceptions.attemptFailed(attempt, cause);
  }

  /** The exception history, newest first (as Flink's; see {@link ExceptionHistory}). */
  public List<ExceptionHistory.ExceptionEntry> exceptions() {
    return exceptions.newestFirst();
  }

  /** TaskManagers that ran tasks of this job. */
  Set<String> hosts() {
    return new HashSet<>(hosts);
  }

  @Override
  public Placement placement(ExecutionAttemptId task) {
    synchronized (this) {
      if (!open.contains(task)) {
        return Placement.DEPLOYED;
      }
      if (!placed.containsKey(task)) {
        return Placement.SCHEDULED;
      }
      return waiting.containsKey(task) ? Placement.DEPLOYING : Placement.DEPLOYED;
    }
  }

  /**
   * The TaskManager this gateway placed {@code task} on, by id and control address; null while it
   * waits for slots or once it ended. Reads the placement without this gateway's lock.
   */
  @Override
  public String location(ExecutionAttemptId task) {
    TaskManagerRegistry.TaskManager tm = placed.get(task);
    return tm == null ? null : tm.id + " (" + tm.address() + ")";
  }

  /** Runs {@code call} now, or once the deployment of {@code task} completed; false if neither. */
  private boolean whenDeployed(ExecutionAttemptId task, Runnable call) {
    synchronized (this) {
      List<Runnable> calls = waiting.get(task);
      if (calls != null) {
        calls.add(call);
        return true;
      }
    }
    if (placed.containsKey(task)) {
      call.run();
      return true;
    }
    return false;
  }

  @Override
  public void triggerCheckpoint(
      ExecutionAttemptId task, long checkpointId, long timestamp, CheckpointOptions options) {
    if (!whenDeployed(task, () -> sendTrigger(task, checkpointId, timestamp, options))) {
      LOG.debug("Checkpoint {} not triggered on {}: it is not deployed", checkpointId, task);
    }
  }

  private void sendTrigger(
      ExecutionAttemptId task, long checkpointId, long timestamp, CheckpointOptions options) {
    TaskManagerRegistry.TaskManager tm = placed.get(task);
    if (tm != null) {
      calls.triggerCheckpoint(tm, task, checkpointId, timestamp, options);
    }
  }

  @Override
  public void notifyCheckpointComplete(
      ExecutionAttemptId task, long checkpointId, boolean isFinal) {
    notify(task, checkpointId, true, isFinal);
  }

  @Override
  public void notifyCheckpointAborted(ExecutionAttemptId task, long checkpointId) {
    notify(task, checkpointId, false, false);
  }

  private void notify(ExecutionAttemptId task, long checkpointId, boolean complete, boolean fin) {
    whenDeployed(task, () -> sendNotify(task, checkpointId, complete, fin));
  }

  private void sendNotify(
      ExecutionAttemptId task, long checkpointId, boolean complete, boolean fin) {
    TaskManagerRegistry.TaskManager tm = placed.get(task);
    if (tm != null) {
      calls.notifyCheckpoint(tm, task, checkpointId, complete, fin);
    }
  }

  @Override
  public void cancelTask(ExecutionAttemptId task) {
    if (!open.contains(task)) {
      return;
    }
    TaskManagerRegistry.TaskManager tm;
    synchronized (this) {
      tm = placed.get(task);
      if (tm == null || tm.lost) {
        // Waiting for slots, or its TaskManager is gone: it ends here and now, so a deployment
        // that gets its slots later leaves it out.
        JobMasterGateway.TaskMetrics metrics =
            new JobMasterGateway.TaskMetrics(vertexName(task), 0, 0, 0, 0);
        if (close(task, TaskState.CANCELED, null, "-", metrics)) {
          reporter.execute(() -> jobMaster.taskTerminated(task, TaskState.CANCELED, null, metrics));
        }
        return;
      }
    }
    whenDeployed(task, () -> calls.cancelTask(tm, task));
  }

  /**
   * Asks every TaskManager that runs subtasks of {@code jobId} for their counters, all at once,
   * each with a deadline of {@link TaskManagerCalls#SAMPLE_TIMEOUT}: a TaskManager that does not
   * answer in time is left out (its subtasks' counters show as unknown), so a REST call never hangs
   * on one. Fenced as every call of the stub is (the leader's epoch goes with it).
   */
  @Override
  public CompletableFuture<List<SubtaskSample>> sampleSubtasks(String jobId) {
    Set<TaskManagerRegistry.TaskManager> running = new HashSet<>();
    placed.forEach(
        (id, tm) -> {
          if (id.jobId().equals(jobId) && open.contains(id) && !tm.lost) {
            running.add(tm);
          }
        });
    return calls.sampleSubtasks(running, jobId);
  }

  /** The job's subtasks that the registered TaskManagers offer (see {@link TaskOffers}). */
  @Override
  public CompletableFuture<RunningAttempt> runningAttempt(JobGraph graph, String jobId) {
    jobName = graph.jobName();
    vertexNames = graph.vertices().stream().map(JobVertex::getName).toList();
    return offers.runningAttempt(graph, jobId);
  }

  /**
   * Takes over the offered subtasks as this job master's current attempt: they are placed where
   * they run, hold their slots, and each TaskManager is asked to hand them over. Subtasks not
   * offered count as waiting for slots, so cancelling them ends them at once.
   */
  @Override
  public CompletableFuture<Void> adopt(RunningAttempt offered, List<ExecutionAttemptId> tasks) {
    Map<TaskManagerRegistry.TaskManager, List<ExecutionAttemptId>> byTaskManager =
        offers.locate(offered);
    Set<ExecutionAttemptId> located = new HashSet<>();
    byTaskManager.values().forEach(located::addAll);
    String allocation = allocationId(tasks.get(0));
    synchronized (this) {
      open.addAll(tasks);
      allocations.put(allocation, ConcurrentHashMap.newKeySet());
      allocations.get(allocation).addAll(tasks);
      byTaskManager.forEach((tm, ids) -> ids.forEach(id -> placed.put(id, tm)));
    }
    List<CompletableFuture<Void>> confirmations = new ArrayList<>();
    byTaskManager.forEach(
        (tm, ids) -> {
          hosts.add(tm.id);
          registry.adoptSlots(
              allocation,
              tm,
              (int) ids.stream().mapToInt(ExecutionAttemptId::subtask).distinct().count());
          confirmations.add(offers.handOver(tm, offered));
        });
    if (located.size() < offered.running().size()) {
      Set<ExecutionAttemptId> gone = new HashSet<>(offered.running());
      gone.removeAll(located);
      confirmations.add(
          CompletableFuture.failedFuture(
              new IllegalStateException("the TaskManagers running " + gone + " were lost")));
    }
    LOG.info(
        "Job '{}' adopts attempt {}: {} running tasks on {}",
        jobName,
        offered.attempt(),
        located.size(),
        byTaskManager.keySet());
    return CompletableFuture.allOf(confirmations.toArray(CompletableFuture[]::new));
  }

  @Override
  public void releaseJob(String jobId) {
    LOG.info("Releasing job '{}' ({}) on {}", jobName, jobId, hosts);
    for (String id : hosts) {
      TaskManagerRegistry.TaskManager tm = registry.get(id);
      if (tm != null) {
        calls.releaseJob(tm, jobId);
      }
    }
    reporter.shutdown();
  }

  /** A task's TaskManager was lost. */
  static final class TaskManagerLostException extends Exception {
    private static final long serialVersionUID = 1L;

    TaskManagerLostException(TaskManagerRegistry.TaskManager tm, String reason) {
      super(tm + " was lost: " + reason);
    }
  }
}

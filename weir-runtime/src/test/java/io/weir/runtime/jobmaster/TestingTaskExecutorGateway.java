package io.weir.runtime.jobmaster;

import io.weir.runtime.checkpoint.CheckpointOptions;
import io.weir.runtime.graph.JobGraph;
import io.weir.runtime.task.TaskState;
import io.weir.runtime.taskexecutor.ExecutionAttemptId;
import io.weir.runtime.taskexecutor.RunningAttempt;
import io.weir.runtime.taskexecutor.TaskDeploymentDescriptor;
import io.weir.runtime.taskexecutor.TaskExecutorGateway;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.Function;

/**
 * A task executor that runs no task: it records what the job master asks and answers as a test says
 * (Flink's {@code TestingTaskExecutorGateway}). A cancelled subtask reports CANCELED, and with
 * {@link #acknowledgeCheckpoints} every subtask of the attempt acknowledges a triggered checkpoint
 * with no state. Answers go back on one thread of their own, never inside the job master's call, as
 * a real task executor's do.
 */
final class TestingTaskExecutorGateway implements TaskExecutorGateway {

  private final ExecutorService answers =
      Executors.newSingleThreadExecutor(
          r -> {
            Thread t = new Thread(r, "testing-task-executor");
            t.setDaemon(true);
            return t;
          });

  private JobMasterGateway jobMaster;
  private volatile boolean acknowledgeCheckpoints;

  /** Every deployment, in order: one list per submitTasks call. */
  final List<List<TaskDeploymentDescriptor>> deployments = new CopyOnWriteArrayList<>();

  /** Subtasks deployed and not yet reported ended. */
  final Set<ExecutionAttemptId> live = ConcurrentHashMap.newKeySet();

  /** Subtasks ever deployed or adopted here. */
  private final Set<ExecutionAttemptId> known = ConcurrentHashMap.newKeySet();

  /** Checkpoint ids notified complete, per subtask. */
  final Map<ExecutionAttemptId, List<Long>> completedNotifications = new ConcurrentHashMap<>();

  final List<String> released = new CopyOnWriteArrayList<>();

  /** Checkpoint ids notified aborted, per subtask. */
  final Map<ExecutionAttemptId, List<Long>> abortedNotifications = new ConcurrentHashMap<>();

  /** Every subtask asked to cancel, in order. */
  final List<ExecutionAttemptId> cancelled = new CopyOnWriteArrayList<>();

  /** The causes of the attempts the job master failed itself, in order. */
  final List<Throwable> attemptFailures = new CopyOnWriteArrayList<>();

  /** Every adoption: the subtasks of the attempt a job master took over. */
  final List<List<ExecutionAttemptId>> adoptions = new CopyOnWriteArrayList<>();

  /** What {@link #runningAttempt} answers: nothing runs, unless a test offers an attempt. */
  private volatile RunningAttempt offer = RunningAttempt.NONE;

  /** What {@link #adopt} answers: confirmed, unless a test says otherwise. */
  private volatile Throwable refuseAdoption;

  private final Set<Long> acknowledged = ConcurrentHashMap.newKeySet();

  /** Where subtasks stand before they run, as a test says; absent: deployed. */
  final Map<ExecutionAttemptId, Placement> placements = new ConcurrentHashMap<>();

  @Override
  public Placement placement(ExecutionAttemptId task) {
    return placements.getOrDefault(task, Placement.DEPLOYED);
  }

  /** Where a subtask runs, as a test says; null: not known. */
  volatile Function<ExecutionAttemptId, String> locations = id -> null;

  @Override
  public String location(ExecutionAttemptId task) {
    return locations.apply(task);
  }

  /** The gateway for {@code jobMaster}; what a JobMaster's task executor factory returns. */
  TestingTaskExecutorGateway bind(JobMasterGateway jobMaster) {
    this.jobMaster = jobMaster;
    return this;
  }

  /** Every subtask acknowledges each checkpoint triggered from now on, with no state. */
  void acknowledgeCheckpoints() {
    acknowledgeCheckpoints = true;
  }

  /**
   * No subtask acknowledges a checkpoint triggered from now on; returns once the answers already
   * under way have been given.
   */
  void stopAcknowledging() throws Exception {
    acknowledgeCheckpoints = false;
    awaitAnswers();
  }

  /** Returns once every answer already under way (acknowledgement, end report) has been given. */
  void awaitAnswers() throws Exception {
    answers.submit(() -> {}).get();
  }

  /** Offers {@code running} to the next job master that asks for the running subtasks. */
  void offer(RunningAttempt running) {
    offer = running;
  }

  /** The next adoption is refused with {@code why}. */
  void refuseAdoption(Throwable why) {
    refuseAdoption = why;
  }

  /** The subtasks of the newest attempt, deployed or adopted. */
  List<ExecutionAttemptId> current() {
    List<ExecutionAttemptId> newest = new ArrayList<>();
    List<List<ExecutionAttemptId>> all = new ArrayList<>(adoptions);
    deployments.forEach(d -> all.add(d.stream().map(TaskDeploymentDescriptor::id).toList()));
    int attempt = -1;
    for (List<ExecutionAttemptId> ids : all) {
      for (ExecutionAttemptId id : ids) {
        if (id.attempt() > attempt) {
          attempt = id.attempt();
          newest.clear();
        }
        if (id.attempt() == attempt) {
          newest.add(id);
        }
      }
    }
    return newest;
  }

  /** The subtasks of the newest deployment. */
  List<TaskDeploymentDescriptor> latest() {
    List<TaskDeploymentDescriptor> all = new ArrayList<>();
    int attempt = -1;
    for (List<TaskDeploymentDescriptor> d : deployments) {
      for (TaskDeploymentDescriptor tdd : d) {
        if (tdd.id().attempt() > attempt) {
          attempt = tdd.id().attempt();
          all.clear();
        }
        if (tdd.id().attempt() == attempt) {
          all.add(tdd);
        }
      }
    }
    return all;
  }

  /** The attempts deployed so far. */
  int attempts() {
    return (int)
        deployments.stream().flatMap(List::stream).map(t -> t.id().attempt()).distinct().count();
  }

  /** Reports {@code task} ended in {@code state}, as its thread would. */
  void end(ExecutionAttemptId task, TaskState state, Throwable failure) {
    answers.execute(
        () -> {
          if (live.remove(task)) {
            jobMaster.taskTerminated(
                task, state, failure, new JobMasterGateway.TaskMetrics("vertex", 0, 0, 0, 0));
          }
        });
  }

  /** Every live subtask of the newest attempt finishes. */
  void finishAll() {
    for (TaskDeploymentDescriptor tdd : latest()) {
      end(tdd.id(), TaskState.FINISHED, null);
    }
  }

  @Override
  public void submitTasks(List<TaskDeploymentDescriptor> tasks) {
    deployments.add(List.copyOf(tasks));
    tasks.forEach(t -> live.add(t.id()));
    tasks.forEach(t -> known.add(t.id()));
  }

  @Override
  public void triggerCheckpoint(
      ExecutionAttemptId task, long checkpointId, long timestamp, CheckpointOptions options) {
    if (!acknowledgeCheckpoints || !acknowledged.add(checkpointId)) {
      return;
    }
    answers.execute(
        () -> {
          for (ExecutionAttemptId id : current()) {
            if (id.attempt() == task.attempt() && live.contains(id)) {
              jobMaster.acknowledgeCheckpoint(id, checkpointId, Map.of(), null);
            }
          }
        });
  }

  @Override
  public void notifyCheckpointComplete(
      ExecutionAttemptId task, long checkpointId, boolean isFinal) {
    completedNotifications
        .computeIfAbsent(task, t -> new CopyOnWriteArrayList<>())
        .add(checkpointId);
  }

  @Override
  public void notifyCheckpointAborted(ExecutionAttemptId task, long checkpointId) {
    abortedNotifications.computeIfAbsent(task, t -> new CopyOnWriteArrayList<>()).add(checkpointId);
  }

  @Override
  public void attemptFailed(int attempt, Throwable cause) {
    attemptFailures.add(cause);
  }

  @Override
  public void cancelTask(ExecutionAttemptId task) {
    cancelled.add(task);
    if (!known.add(task)) {
      end(task, TaskState.CANCELED, null);
    } else {
      // Never deployed here (a subtask of an adopted attempt that was not offered).
      answers.execute(
          () ->
              jobMaster.taskTerminated(
                  task,
                  TaskState.CANCELED,
                  null,
                  new JobMasterGateway.TaskMetrics("vertex", 0, 0, 0, 0)));
    }
  }

  @Override
  public CompletableFuture<RunningAttempt> runningAttempt(JobGraph graph, String jobId) {
    return CompletableFuture.supplyAsync(() -> offer, answers);
  }

  @Override
  public CompletableFuture<Void> adopt(RunningAttempt offered, List<ExecutionAttemptId> tasks) {
    adoptions.add(List.copyOf(tasks));
    live.addAll(offered.running());
    known.addAll(offered.running());
    Throwable refused = refuseAdoption;
    return refused == null
        ? CompletableFuture.runAsync(() -> {}, answers)
        : CompletableFuture.failedFuture(refused);
  }

  @Override
  public void releaseJob(String jobId) {
    released.add(jobId);
  }
}

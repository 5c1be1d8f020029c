package io.weir.cluster.jobmanager;

import io.grpc.Status;
import io.weir.cluster.rpc.AdoptTasksRequest;
import io.weir.runtime.graph.JobGraph;
import io.weir.runtime.graph.JobVertex;
import io.weir.runtime.taskexecutor.ExecutionAttemptId;
import io.weir.runtime.taskexecutor.RunningAttempt;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * What the TaskManagers registered with this leader offer of a job that a lost leader ran (high
 * availability): the subtasks they kept running for a new leader and those of the same jobs that
 * ended meanwhile. Waits for a job's offers, finds the newest attempt offered and where its
 * subtasks run, and asks each TaskManager to hand its share over ({@code AdoptTasks}).
 *
 * <p>Any thread; the offers are those the registry's TaskManagers made when they registered.
 */
final class TaskOffers {

  private final TaskManagerRegistry registry;

  /** How long to wait for the offers: the grace period the TaskManagers keep their tasks for. */
  private final Duration adoptionWait;

  TaskOffers(TaskManagerRegistry registry, Duration adoptionWait) {
    this.registry = registry;
    this.adoptionWait = adoptionWait;
  }

  /**
   * The subtasks of job {@code jobId} that the registered TaskManagers offer: as soon as every
   * subtask of {@code graph} is accounted for or one has ended, else once the adoption wait is
   * over.
   */
  CompletableFuture<RunningAttempt> runningAttempt(JobGraph graph, String jobId) {
    int subtasks = graph.vertices().stream().mapToInt(JobVertex::getParallelism).sum();
    CompletableFuture<RunningAttempt> result = new CompletableFuture<>();
    Runnable check =
        () -> {
          RunningAttempt offered = offered(jobId);
          if (offered.running().size() + offered.ended().size() >= subtasks
              || !offered.ended().isEmpty()) {
            result.complete(offered);
          }
        };
    Runnable stopListening = registry.onRegistered(check);
    check.run();
    var unused =
        CompletableFuture.runAsync(
            () -> result.complete(offered(jobId)),
            CompletableFuture.delayedExecutor(adoptionWait.toMillis(), TimeUnit.MILLISECONDS));
    return result.whenComplete((r, e) -> stopListening.run());
  }

  /**
   * The newest attempt of job {@code jobId} that the registered TaskManagers offer: its subtasks
   * they run and those that ended; {@link RunningAttempt#NONE} when none runs.
   */
  private RunningAttempt offered(String jobId) {
    Set<ExecutionAttemptId> running = new HashSet<>();
    Set<ExecutionAttemptId> ended = new HashSet<>();
    for (TaskManagerRegistry.TaskManager tm : registry.taskManagers()) {
      tm.offered.stream().filter(t -> t.jobId().equals(jobId)).forEach(running::add);
      tm.offeredEnded.stream().filter(t -> t.jobId().equals(jobId)).forEach(ended::add);
    }
    int attempt = running.stream().mapToInt(ExecutionAttemptId::attempt).max().orElse(-1);
    if (attempt < 0) {
      return RunningAttempt.NONE;
    }
    running.removeIf(t -> t.attempt() != attempt);
    ended.removeIf(t -> t.attempt() != attempt);
    return new RunningAttempt(attempt, running, ended);
  }

  /**
   * Where the running subtasks of {@code offered} are: by registered TaskManager, each subtask
   * once. A subtask missing from every list runs on a TaskManager that was lost since it offered.
   */
  Map<TaskManagerRegistry.TaskManager, List<ExecutionAttemptId>> locate(RunningAttempt offered) {
    Map<TaskManagerRegistry.TaskManager, List<ExecutionAttemptId>> byTaskManager = new HashMap<>();
    Set<ExecutionAttemptId> located = new HashSet<>();
    for (TaskManagerRegistry.TaskManager tm : registry.taskManagers()) {
      for (ExecutionAttemptId id : tm.offered) {
        if (offered.running().contains(id) && located.add(id)) {
          byTaskManager.computeIfAbsent(tm, k -> new ArrayList<>()).add(id);
        }
      }
    }
    return byTaskManager;
  }

  /**
   * Asks {@code tm} to hand over its subtasks of {@code offered}: completes once it did, fails
   * naming it and why when it no longer keeps them.
   */
  CompletableFuture<Void> handOver(TaskManagerRegistry.TaskManager tm, RunningAttempt offered) {
    CompletableFuture<Void> confirmed = new CompletableFuture<>();
    String jobId = offered.running().iterator().next().jobId();
    TaskManagerRegistry.whenDone(
        tm.stub.adoptTasks(
            AdoptTasksRequest.newBuilder().setJobId(jobId).setAttempt(offered.attempt()).build()),
        () -> confirmed.complete(null),
        cause -> {
          Status status = Status.fromThrowable(cause);
          confirmed.completeExceptionally(
              new IllegalStateException(
                  tm
                      + " did not hand over its tasks: "
                      + (status.getDescription() != null
                          ? status.getDescription()
                          : status.getCode().toString())));
        });
    return confirmed;
  }
}

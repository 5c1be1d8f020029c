package io.weir.cluster.jobmanager;

import com.google.common.util.concurrent.Futures;
import com.google.common.util.concurrent.ListenableFuture;
import io.weir.cluster.rpc.CancelTaskRequest;
import io.weir.cluster.rpc.Messages;
import io.weir.cluster.rpc.NotifyCheckpointRequest;
import io.weir.cluster.rpc.ReleaseJobRequest;
import io.weir.cluster.rpc.SampleSubtasksRequest;
import io.weir.cluster.rpc.TriggerCheckpointRequest;
import io.weir.runtime.checkpoint.CheckpointOptions;
import io.weir.runtime.taskexecutor.ExecutionAttemptId;
import io.weir.runtime.taskexecutor.SubtaskSample;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The calls a job's {@link ClusterGateway} makes over the control plane to the TaskManagers that
 * run its tasks, once it knows where a task runs: checkpoint triggers and notifications,
 * cancellations, counter samples and the job's release. Each request is built here and sent fenced,
 * as every call of the stub is; a call that fails because its TaskManager is unreachable declares
 * that TaskManager lost in the {@link TaskManagerRegistry}. Any thread.
 */
final class TaskManagerCalls {

  private static final Logger LOG = LoggerFactory.getLogger(TaskManagerCalls.class);

  /** How long a TaskManager may take to report its subtasks' counters for the REST API. */
  static final Duration SAMPLE_TIMEOUT = Duration.ofSeconds(2);

  private final TaskManagerRegistry registry;

  TaskManagerCalls(TaskManagerRegistry registry) {
    this.registry = registry;
  }

  /** Asks {@code tm} to have {@code task} take checkpoint (or savepoint) {@code checkpointId}. */
  void triggerCheckpoint(
      TaskManagerRegistry.TaskManager tm,
      ExecutionAttemptId task,
      long checkpointId,
      long timestamp,
      CheckpointOptions options) {
    fireAndForget(
        tm,
        tm.stub.triggerCheckpoint(
            TriggerCheckpointRequest.newBuilder()
                .setTask(Messages.toProto(task))
                .setCheckpointId(checkpointId)
                .setTimestamp(timestamp)
                .setCheckpointType(options.type().name())
                .setAlignment(options.alignment().name())
                .setTargetLocation(options.targetLocation() == null ? "" : options.targetLocation())
                .build()));
  }

  /** Tells {@code task} on {@code tm} that checkpoint {@code checkpointId} completed or aborted. */
  void notifyCheckpoint(
      TaskManagerRegistry.TaskManager tm,
      ExecutionAttemptId task,
      long checkpointId,
      boolean complete,
      boolean fin) {
    fireAndForget(
        tm,
        tm.stub.notifyCheckpoint(
            NotifyCheckpointRequest.newBuilder()
                .setTask(Messages.toProto(task))
                .setCheckpointId(checkpointId)
                .setComplete(complete)
                .setIsFinal(fin)
                .build()));
  }

  /** Asks {@code tm} to cancel {@code task}; a TaskManager that cannot be reached is lost. */
  void cancelTask(TaskManagerRegistry.TaskManager tm, ExecutionAttemptId task) {
    TaskManagerRegistry.whenDone(
        tm.stub.cancelTask(CancelTaskRequest.newBuilder().setTask(Messages.toProto(task)).build()),
        () -> {},
        cause -> {
          if (TaskManagerRegistry.unreachable(cause)) {
            registry.lost(tm, "its connection failed while cancelling " + task);
          }
        });
  }

  /**
   * Asks every TaskManager of {@code running} for the counters of the subtasks of {@code jobId} it
   * runs, all at once, each with a deadline of {@link #SAMPLE_TIMEOUT}: a TaskManager that does not
   * answer in time is left out (its subtasks' counters show as unknown), so a REST call never hangs
   * on one.
   */
  CompletableFuture<List<SubtaskSample>> sampleSubtasks(
      Set<TaskManagerRegistry.TaskManager> running, String jobId) {
    List<CompletableFuture<List<SubtaskSample>>> answers = new ArrayList<>();
    for (TaskManagerRegistry.TaskManager tm : running) {
      CompletableFuture<List<SubtaskSample>> answer = new CompletableFuture<>();
      var call =
          tm.stub
              .withDeadlineAfter(SAMPLE_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)
              .sampleSubtasks(SampleSubtasksRequest.newBuilder().setJobId(jobId).build());
      TaskManagerRegistry.whenDone(
          call,
          () -> {
            List<SubtaskSample> samples = new ArrayList<>();
            Futures.getUnchecked(call)
                .getSubtasksList()
                .forEach(c -> samples.add(Messages.fromProto(c, tm.id, tm.address())));
            answer.complete(samples);
          },
          cause -> {
            LOG.debug("{} did not report its subtasks' counters: {}", tm, cause.toString());
            answer.complete(List.of());
          });
      answers.add(answer);
    }
    return CompletableFuture.allOf(answers.toArray(CompletableFuture[]::new))
        .thenApply(
            done -> {
              List<SubtaskSample> all = new ArrayList<>();
              answers.forEach(a -> all.addAll(a.join()));
              return all;
            });
  }

  /** Releases job {@code jobId} on {@code tm} (see {@link ClusterGateway#releaseJob}). */
  void releaseJob(TaskManagerRegistry.TaskManager tm, String jobId) {
    fireAndForget(tm, tm.stub.releaseJob(ReleaseJobRequest.newBuilder().setJobId(jobId).build()));
  }

  private void fireAndForget(TaskManagerRegistry.TaskManager tm, ListenableFuture<?> call) {
    TaskManagerRegistry.whenDone(
        call,
        () -> {},
        cause -> {
          if (TaskManagerRegistry.unreachable(cause)) {
            registry.lost(tm, "its connection failed (" + cause.getMessage() + ")");
          } else {
            LOG.warn("A call to {} failed: {}", tm, cause.toString());
          }
        });
  }
}

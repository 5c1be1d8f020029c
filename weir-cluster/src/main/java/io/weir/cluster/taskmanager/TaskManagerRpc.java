package io.weir.cluster.taskmanager;

import io.grpc.Status;
import io.grpc.stub.StreamObserver;
import io.weir.cluster.rpc.AdoptTasksRequest;
import io.weir.cluster.rpc.CancelTaskRequest;
import io.weir.cluster.rpc.Empty;
import io.weir.cluster.rpc.JobManagerHeartbeat;
import io.weir.cluster.rpc.Messages;
import io.weir.cluster.rpc.NotifyCheckpointRequest;
import io.weir.cluster.rpc.ReleaseJobRequest;
import io.weir.cluster.rpc.SampleSubtasksRequest;
import io.weir.cluster.rpc.SampleSubtasksResponse;
import io.weir.cluster.rpc.SubmitTasksRequest;
import io.weir.cluster.rpc.TaskManagerServiceGrpc;
import io.weir.cluster.rpc.TaskManagerStatus;
import io.weir.cluster.rpc.TriggerCheckpointRequest;
import io.weir.cluster.rpc.WeirMessages;
import io.weir.runtime.checkpoint.BarrierHandler;
import io.weir.runtime.checkpoint.CheckpointOptions;
import io.weir.runtime.recovery.NonRecoverable;
import io.weir.runtime.taskexecutor.ExecutionAttemptId;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** The TaskManager's side of the control plane: what the JobManager calls. */
final class TaskManagerRpc extends TaskManagerServiceGrpc.TaskManagerServiceImplBase {

  private static final Logger LOG = LoggerFactory.getLogger(TaskManagerRpc.class);
  private static final Empty EMPTY = Empty.getDefaultInstance();

  private final TaskManager taskManager;

  TaskManagerRpc(TaskManager taskManager) {
    this.taskManager = taskManager;
  }

  private static void ok(StreamObserver<Empty> response) {
    response.onNext(EMPTY);
    response.onCompleted();
  }

  @Override
  public void submitTasks(SubmitTasksRequest request, StreamObserver<Empty> response) {
    try {
      taskManager
          .jobFor(request.getJob())
          .submit(request.getTasksList(), request.getLocationsList());
      ok(response);
    } catch (Exception e) {
      LOG.warn(
          "Cannot deploy tasks of job '{}' ({}): {}",
          request.getJob().getJobName(),
          request.getJob().getJobId(),
          e.getMessage(),
          e);
      // INVALID_ARGUMENT tells the JobManager that another attempt would fail the same way.
      Status status =
          e instanceof NonRecoverable ? Status.INVALID_ARGUMENT : Status.FAILED_PRECONDITION;
      response.onError(status.withDescription(WeirMessages.describe(e)).asRuntimeException());
    }
  }

  @Override
  public void triggerCheckpoint(TriggerCheckpointRequest request, StreamObserver<Empty> response) {
    ExecutionAttemptId id = Messages.fromProto(request.getTask());
    JobOnTaskManager job = taskManager.job(id.jobId());
    if (job != null) {
      job.trigger(
          id,
          request.getCheckpointId(),
          request.getTimestamp(),
          request.getCheckpointType().isEmpty()
              ? null
              : new CheckpointOptions(
                  CheckpointOptions.Type.valueOf(request.getCheckpointType()),
                  BarrierHandler.Alignment.valueOf(request.getAlignment()),
                  request.getTargetLocation().isEmpty() ? null : request.getTargetLocation()));
    }
    ok(response);
  }

  @Override
  public void notifyCheckpoint(NotifyCheckpointRequest request, StreamObserver<Empty> response) {
    ExecutionAttemptId id = Messages.fromProto(request.getTask());
    JobOnTaskManager job = taskManager.job(id.jobId());
    if (job != null) {
      job.notify(id, request.getCheckpointId(), request.getComplete(), request.getIsFinal());
    }
    ok(response);
  }

  @Override
  public void cancelTask(CancelTaskRequest request, StreamObserver<Empty> response) {
    ExecutionAttemptId id = Messages.fromProto(request.getTask());
    JobOnTaskManager job = taskManager.job(id.jobId());
    if (job != null) {
      job.cancel(id);
    }
    ok(response);
  }

  @Override
  public void releaseJob(ReleaseJobRequest request, StreamObserver<Empty> response) {
    JobOnTaskManager job = taskManager.job(request.getJobId());
    if (job != null) {
      job.release();
    }
    ok(response);
  }

  @Override
  public void adoptTasks(AdoptTasksRequest request, StreamObserver<Empty> response) {
    try {
      taskManager.adopt(request.getJobId(), request.getAttempt());
      ok(response);
    } catch (IllegalStateException e) {
      response.onError(
          Status.FAILED_PRECONDITION.withDescription(e.getMessage()).asRuntimeException());
    }
  }

  @Override
  public void sampleSubtasks(
      SampleSubtasksRequest request, StreamObserver<SampleSubtasksResponse> response) {
    JobOnTaskManager job = taskManager.job(request.getJobId());
    SampleSubtasksResponse.Builder reply = SampleSubtasksResponse.newBuilder();
    if (job != null) {
      job.sampleSubtasks().forEach(s -> reply.addSubtasks(Messages.toProto(s)));
    }
    response.onNext(reply.build());
    response.onCompleted();
  }

  @Override
  public void heartbeat(JobManagerHeartbeat request, StreamObserver<TaskManagerStatus> response) {
    response.onNext(taskManager.status());
    response.onCompleted();
  }
}

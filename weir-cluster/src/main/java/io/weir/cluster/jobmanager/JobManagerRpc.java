package io.weir.cluster.jobmanager;

import com.google.protobuf.ByteString;
import io.grpc.Status;
import io.grpc.stub.StreamObserver;
import io.weir.api.CheckpointStatistics;
import io.weir.cluster.ClusterOptions;
import io.weir.cluster.rpc.AcknowledgeCheckpoint;
import io.weir.cluster.rpc.DeclineCheckpoint;
import io.weir.cluster.rpc.Empty;
import io.weir.cluster.rpc.EndOfInput;
import io.weir.cluster.rpc.JarChunk;
import io.weir.cluster.rpc.JarRequest;
import io.weir.cluster.rpc.JarStore;
import io.weir.cluster.rpc.JobManagerServiceGrpc;
import io.weir.cluster.rpc.Messages;
import io.weir.cluster.rpc.RegisterTaskManagerRequest;
import io.weir.cluster.rpc.RegisterTaskManagerResponse;
import io.weir.cluster.rpc.SinkCommitReport;
import io.weir.cluster.rpc.TaskManagerHeartbeat;
import io.weir.cluster.rpc.TaskManagerHeartbeatResponse;
import io.weir.cluster.rpc.TaskStateUpdate;
import io.weir.runtime.jobmaster.JobMasterGateway;
import io.weir.runtime.storage.DeploymentSerializer;
import io.weir.runtime.taskexecutor.ExecutionAttemptId;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** The JobManager's side of the control plane: what TaskManagers call. */
final class JobManagerRpc extends JobManagerServiceGrpc.JobManagerServiceImplBase {

  private static final Logger LOG = LoggerFactory.getLogger(JobManagerRpc.class);
  private static final Empty EMPTY = Empty.getDefaultInstance();

  private final TaskManagerRegistry registry;
  private final Dispatcher dispatcher;
  private final ClusterOptions options;

  JobManagerRpc(TaskManagerRegistry registry, Dispatcher dispatcher, ClusterOptions options) {
    this.registry = registry;
    this.dispatcher = dispatcher;
    this.options = options;
  }

  @Override
  public void registerTaskManager(
      RegisterTaskManagerRequest request, StreamObserver<RegisterTaskManagerResponse> response) {
    if (!dispatcher.isLeading()) {
      // Not a refusal for good: the TaskManager tries again, and follows the leader.
      response.onError(
          Status.UNAVAILABLE
              .withDescription("this JobManager is a standby and does not lead the cluster")
              .asRuntimeException());
      return;
    }
    if (request.getSlots() < 1 || request.getPort() <= 0 || request.getHost().isBlank()) {
      response.onNext(
          RegisterTaskManagerResponse.newBuilder()
              .setAccepted(false)
              .setReason("a TaskManager needs an address and at least one slot")
              .build());
    } else {
      registry.register(
          request.getTaskManagerId(),
          request.getHost(),
          request.getPort(),
          request.getDataPort(),
          request.getSlots(),
          request.getRunningList().stream().map(Messages::fromProto).collect(Collectors.toSet()),
          request.getEndedList().stream().map(Messages::fromProto).collect(Collectors.toSet()));
      response.onNext(
          RegisterTaskManagerResponse.newBuilder()
              .setAccepted(true)
              .setHeartbeatIntervalMillis(options.get(ClusterOptions.HEARTBEAT_INTERVAL).toMillis())
              .setHeartbeatTimeoutMillis(options.get(ClusterOptions.HEARTBEAT_TIMEOUT).toMillis())
              .setLeaderEpoch(dispatcher.leaderEpoch())
              .build());
    }
    response.onCompleted();
  }

  @Override
  public void heartbeat(
      TaskManagerHeartbeat request, StreamObserver<TaskManagerHeartbeatResponse> response) {
    response.onNext(
        TaskManagerHeartbeatResponse.newBuilder()
            .setKnown(registry.heard(request.getTaskManagerId()))
            .build());
    response.onCompleted();
  }

  /** The gateway of the job of {@code id}, or null for a job this JobManager does not run. */
  private ClusterGateway gateway(ExecutionAttemptId id) {
    try {
      return dispatcher.job(id.jobId()).gateway();
    } catch (Dispatcher.NoSuchJobException e) {
      return null;
    }
  }

  private JobMasterGateway master(ExecutionAttemptId id) {
    try {
      Dispatcher.Job job = dispatcher.job(id.jobId());
      return job.gateway().isOpen(id) ? job.master() : null;
    } catch (Dispatcher.NoSuchJobException e) {
      return null;
    }
  }

  @Override
  public void updateTaskState(TaskStateUpdate request, StreamObserver<Empty> response) {
    ExecutionAttemptId id = Messages.fromProto(request.getTask());
    ClusterGateway gateway = gateway(id);
    if (gateway != null) {
      gateway.reported(
          id,
          Messages.fromProto(request.getState()),
          request.hasFailure() && !request.getFailure().getClassName().isEmpty()
              ? Messages.fromProto(request.getFailure())
              : null,
          new JobMasterGateway.TaskMetrics(
              request.getVertexName(),
              request.getRecordsIn(),
              request.getRecordsOut(),
              request.getBytesIn(),
              request.getBytesOut()));
    }
    response.onNext(EMPTY);
    response.onCompleted();
  }

  @Override
  public void acknowledge(AcknowledgeCheckpoint request, StreamObserver<Empty> response) {
    ExecutionAttemptId id = Messages.fromProto(request.getTask());
    JobMasterGateway master = master(id);
    if (master != null) {
      try {
        master.acknowledgeCheckpoint(
            id,
            request.getCheckpointId(),
            DeploymentSerializer.deserializeStates(request.getStates().toByteArray()),
            Messages.fromProto(request.getStatistics()));
      } catch (IOException e) {
        LOG.warn(
            "Acknowledgement of checkpoint {} by {} is unreadable",
            request.getCheckpointId(),
            id,
            e);
        master.declineCheckpoint(id, request.getCheckpointId(), e);
      }
    }
    response.onNext(EMPTY);
    response.onCompleted();
  }

  @Override
  public void decline(DeclineCheckpoint request, StreamObserver<Empty> response) {
    ExecutionAttemptId id = Messages.fromProto(request.getTask());
    JobMasterGateway master = master(id);
    if (master != null) {
      master.declineCheckpoint(
          id, request.getCheckpointId(), Messages.fromProto(request.getCause()));
    }
    response.onNext(EMPTY);
    response.onCompleted();
  }

  @Override
  public void reachedEndOfInput(EndOfInput request, StreamObserver<Empty> response) {
    ExecutionAttemptId id = Messages.fromProto(request.getTask());
    JobMasterGateway master = master(id);
    if (master != null) {
      master.reachedEndOfInput(id);
    }
    response.onNext(EMPTY);
    response.onCompleted();
  }

  @Override
  public void reportSinkCommit(SinkCommitReport request, StreamObserver<Empty> response) {
    ExecutionAttemptId id = Messages.fromProto(request.getTask());
    JobMasterGateway master = master(id);
    if (master != null) {
      master.sinkCommitted(
          id,
          request.getCheckpointId(),
          new CheckpointStatistics.SinkCommit(
              request.getNotifiedTimestamp(),
              request.getDurationMillis(),
              request.getFailure().isEmpty() ? null : request.getFailure()));
    }
    response.onNext(EMPTY);
    response.onCompleted();
  }

  @Override
  public void downloadJar(JarRequest request, StreamObserver<JarChunk> response) {
    JarStore jars = dispatcher.jars();
    if (!jars.contains(request.getJarId())) {
      response.onError(
          Status.NOT_FOUND
              .withDescription("No jar " + request.getJarId() + " on this JobManager")
              .asRuntimeException());
      return;
    }
    try (InputStream in = Files.newInputStream(jars.path(request.getJarId()))) {
      byte[] buffer = new byte[1 << 20];
      int n;
      while ((n = in.read(buffer)) > 0) {
        response.onNext(JarChunk.newBuilder().setData(ByteString.copyFrom(buffer, 0, n)).build());
      }
      response.onCompleted();
    } catch (IOException e) {
      response.onError(
          Status.INTERNAL
              .withDescription("Cannot read jar " + request.getJarId() + ": " + e.getMessage())
              .asRuntimeException());
    }
  }
}

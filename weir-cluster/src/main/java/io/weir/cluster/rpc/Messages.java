package io.weir.cluster.rpc;

import io.weir.api.CheckpointStatistics;
import io.weir.runtime.checkpoint.CorruptCheckpointException;
import io.weir.runtime.metrics.RestoreProgress;
import io.weir.runtime.recovery.Failures;
import io.weir.runtime.task.TaskState;
import io.weir.runtime.taskexecutor.ExecutionAttemptId;
import io.weir.runtime.taskexecutor.SubtaskSample;
import java.io.PrintWriter;
import java.io.StringWriter;

/** Conversions between runtime values and control-plane messages. */
public final class Messages {

  private Messages() {}

  public static AttemptId toProto(ExecutionAttemptId id) {
    return AttemptId.newBuilder()
        .setJobId(id.jobId())
        .setVertex(id.vertex())
        .setSubtask(id.subtask())
        .setAttempt(id.attempt())
        .build();
  }

  public static ExecutionAttemptId fromProto(AttemptId id) {
    return new ExecutionAttemptId(id.getJobId(), id.getVertex(), id.getSubtask(), id.getAttempt());
  }

  public static Failure toProto(Throwable t) {
    if (t == null) {
      return Failure.getDefaultInstance();
    }
    StringWriter trace = new StringWriter();
    t.printStackTrace(new PrintWriter(trace));
    StringBuilder message = new StringBuilder();
    for (Throwable c = t; c != null; c = c.getCause()) {
      String m = c.getMessage() == null ? c.getClass().getSimpleName() : c.getMessage();
      if (message.indexOf(m) < 0) {
        message.append(message.length() == 0 ? "" : "; caused by: ").append(m);
      }
    }
    return Failure.newBuilder()
        .setClassName(t.getClass().getName())
        .setMessage(message.toString())
        .setStackTrace(trace.toString())
        .setNonRecoverable(Failures.findNonRecoverable(t) != null)
        .setCorruptCheckpointId(CorruptCheckpointException.findIn(t))
        .build();
  }

  /** A failure from another process, classified as it was there. */
  public static Throwable fromProto(Failure f) {
    RemoteFailure remote =
        f.getNonRecoverable()
            ? new NonRecoverableRemoteFailure(f.getClassName(), f.getMessage(), f.getStackTrace())
            : new RemoteFailure(f.getClassName(), f.getMessage(), f.getStackTrace());
    if (f.getCorruptCheckpointId() >= 0) {
      return new CorruptCheckpointException(f.getCorruptCheckpointId(), f.getMessage(), remote);
    }
    return remote;
  }

  public static io.weir.cluster.rpc.TaskState toProto(TaskState state) {
    return switch (state) {
      case FINISHED -> io.weir.cluster.rpc.TaskState.FINISHED;
      case FAILED -> io.weir.cluster.rpc.TaskState.FAILED;
      case CANCELED -> io.weir.cluster.rpc.TaskState.CANCELED;
      default -> throw new IllegalArgumentException("Not a terminal task state: " + state);
    };
  }

  public static TaskState fromProto(io.weir.cluster.rpc.TaskState state) {
    return switch (state) {
      case FINISHED -> TaskState.FINISHED;
      case FAILED -> TaskState.FAILED;
      case CANCELED -> TaskState.CANCELED;
      default -> throw new IllegalArgumentException("Not a terminal task state: " + state);
    };
  }

  public static SubtaskStatistics toProto(CheckpointStatistics.SubtaskCheckpointStatistics s) {
    if (s == null) {
      return SubtaskStatistics.getDefaultInstance();
    }
    SubtaskStatistics.Builder proto = SubtaskStatistics.newBuilder();
    if (s.lastBarrierFrom() != null) {
      proto.setLastBarrierFrom(s.lastBarrierFrom());
    }
    return proto
        .setTaskName(s.taskName())
        .setSubtaskIndex(s.subtaskIndex())
        .setStartDelayMillis(s.startDelayMillis())
        .setAlignmentDurationMillis(s.alignmentDurationMillis())
        .setUnaligned(s.unaligned())
        .setChannelStateBytes(s.channelStateBytes())
        .setSyncDurationMillis(s.syncDurationMillis())
        .setAsyncDurationMillis(s.asyncDurationMillis())
        .setStateSizeBytes(s.stateSizeBytes())
        .setCheckpointedSizeBytes(s.checkpointedSizeBytes())
        .setFilesWritten(s.filesWritten())
        .build();
  }

  public static CheckpointStatistics.SubtaskCheckpointStatistics fromProto(SubtaskStatistics s) {
    return new CheckpointStatistics.SubtaskCheckpointStatistics(
            s.getTaskName(),
            s.getSubtaskIndex(),
            s.getStartDelayMillis(),
            s.getAlignmentDurationMillis(),
            s.getUnaligned(),
            s.getChannelStateBytes(),
            s.getSyncDurationMillis(),
            s.getAsyncDurationMillis(),
            s.getStateSizeBytes(),
            s.getCheckpointedSizeBytes())
        .withFilesWritten(s.getFilesWritten())
        .withLastBarrierFrom(s.hasLastBarrierFrom() ? s.getLastBarrierFrom() : null);
  }

  public static SubtaskCounters toProto(SubtaskSample s) {
    SubtaskCounters.Builder counters = SubtaskCounters.newBuilder();
    RestoreProgress.Sample r = s.restore();
    if (r != null) {
      counters.setRestore(
          RestoreSample.newBuilder()
              .setCheckpointId(r.checkpointId())
              .setBytesRead(r.bytesRead())
              .setBytesTotal(r.bytesTotal())
              .setFilesRead(r.filesRead())
              .setFilesTotal(r.filesTotal())
              .setDurationMillis(r.durationMillis())
              .setDone(r.done())
              .setRecordsReplayed(r.recordsReplayed()));
    }
    counters
        .setTask(toProto(s.id()))
        .setState(s.state().name())
        .setStartTimeMillis(s.startTimeMillis())
        .setRecordsIn(s.recordsIn())
        .setRecordsOut(s.recordsOut())
        .setBytesIn(s.bytesIn())
        .setBytesOut(s.bytesOut())
        .setAgeNanos(s.ageNanos())
        .setIdleNanos(s.idleNanos())
        .setBackPressuredNanos(s.backPressuredNanos())
        .setInitializing(!s.initialized())
        .putAllOperatorMetrics(s.operatorMetrics());
    if (s.inputWatermark() != Long.MIN_VALUE) {
      counters.setInputWatermark(s.inputWatermark());
    }
    if (s.outputWatermark() != Long.MIN_VALUE) {
      counters.setOutputWatermark(s.outputWatermark());
    }
    return counters.build();
  }

  /** A sample a TaskManager sent, of a subtask on {@code taskManagerId} at {@code endpoint}. */
  public static SubtaskSample fromProto(SubtaskCounters s, String taskManagerId, String endpoint) {
    return new SubtaskSample(
        fromProto(s.getTask()),
        TaskState.valueOf(s.getState()),
        s.getStartTimeMillis(),
        s.getRecordsIn(),
        s.getRecordsOut(),
        s.getBytesIn(),
        s.getBytesOut(),
        s.getAgeNanos(),
        s.getIdleNanos(),
        s.getBackPressuredNanos(),
        taskManagerId,
        endpoint,
        !s.getInitializing(),
        s.hasRestore() ? fromProto(s.getRestore()) : null,
        s.hasInputWatermark() ? s.getInputWatermark() : Long.MIN_VALUE,
        s.hasOutputWatermark() ? s.getOutputWatermark() : Long.MIN_VALUE,
        s.getOperatorMetricsMap());
  }

  private static RestoreProgress.Sample fromProto(RestoreSample r) {
    return new RestoreProgress.Sample(
        r.getCheckpointId(),
        r.getBytesRead(),
        r.getBytesTotal(),
        r.getFilesRead(),
        r.getFilesTotal(),
        r.getDurationMillis(),
        r.getDone(),
        r.getRecordsReplayed());
  }

  /** A failure raised in another process: its class name, messages and stack trace as text. */
  public static class RemoteFailure extends Exception {
    private static final long serialVersionUID = 1L;
    private final String remoteClass;
    private final String remoteTrace;

    RemoteFailure(String remoteClass, String message, String remoteTrace) {
      super(message, null, false, false);
      this.remoteClass = remoteClass;
      this.remoteTrace = remoteTrace;
    }

    public String remoteClass() {
      return remoteClass;
    }

    public String remoteTrace() {
      return remoteTrace;
    }

    /** As the failure read where it happened: its own class, not this carrier's. */
    @Override
    public String toString() {
      String message = getLocalizedMessage();
      return message == null ? remoteClass : remoteClass + ": " + message;
    }
  }

  /** A remote failure that would recur on every attempt. */
  static final class NonRecoverableRemoteFailure extends RemoteFailure
      implements io.weir.runtime.recovery.NonRecoverable {
    private static final long serialVersionUID = 1L;

    NonRecoverableRemoteFailure(String remoteClass, String message, String remoteTrace) {
      super(remoteClass, message, remoteTrace);
    }
  }
}

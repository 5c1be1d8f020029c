package io.weir.runtime.jobmaster;

import io.weir.api.CheckpointConfig;
import io.weir.api.CheckpointingMode;
import io.weir.api.config.CheckpointingOptions;
import io.weir.api.graph.SourceTransformation;
import io.weir.api.source.Source;
import io.weir.runtime.checkpoint.BarrierHandler;
import io.weir.runtime.checkpoint.SerializedSplits;
import io.weir.runtime.checkpoint.StateAssignment;
import io.weir.runtime.checkpoint.StateElement;
import io.weir.runtime.checkpoint.TaskRestore;
import io.weir.runtime.checkpoint.TaskRestore.AssignedSplits;
import io.weir.runtime.graph.JobGraph;
import io.weir.runtime.graph.JobVertex;
import io.weir.runtime.graph.StreamNode;
import io.weir.runtime.storage.RetainedCheckpoint;
import io.weir.runtime.task.SourceStreamTask;
import io.weir.runtime.taskexecutor.ExecutionAttemptId;
import io.weir.runtime.taskexecutor.TaskDeploymentDescriptor;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;

/**
 * The deployment descriptors of one attempt of a job (Flink's {@code
 * TaskDeploymentDescriptorFactory}): every subtask with the job's checkpoint settings and its share
 * of the checkpoint it restores, or a fresh start; a source's splits are created, or dealt to the
 * subtasks that own them. Reads checkpoint metadata and split metadata only, never keyed or
 * operator state.
 *
 * <p>Holds no state of its own between calls; any thread.
 */
final class TaskDeploymentDescriptorFactory {

  private final String jobId;
  private final JobGraph graph;
  private final TaskDeploymentDescriptor.Checkpointing checkpointing;

  TaskDeploymentDescriptorFactory(String jobId, JobGraph graph) {
    this.jobId = jobId;
    this.graph = graph;
    this.checkpointing =
        checkpointingSettings(
            graph, CheckpointConfig.isCheckpointingEnabled(graph.configuration()));
  }

  static TaskDeploymentDescriptor.Checkpointing checkpointingSettings(
      JobGraph graph, boolean enabled) {
    CheckpointConfig cc = new CheckpointConfig(graph.configuration());
    long alignedTimeout = cc.getAlignedCheckpointTimeout().toMillis();
    BarrierHandler.Alignment alignment =
        !cc.isUnalignedCheckpointsEnabled()
            ? BarrierHandler.Alignment.ALIGNED
            : alignedTimeout > 0
                ? BarrierHandler.Alignment.ALIGNED_THEN_UNALIGNED
                : BarrierHandler.Alignment.UNALIGNED;
    boolean exactlyOnce =
        graph.configuration().get(CheckpointingOptions.CHECKPOINTING_CONSISTENCY_MODE)
            == CheckpointingMode.EXACTLY_ONCE;
    return new TaskDeploymentDescriptor.Checkpointing(
        enabled, exactlyOnce, alignment, alignedTimeout);
  }

  /** Whether the job takes periodic checkpoints. */
  boolean checkpointingEnabled() {
    return checkpointing.enabled();
  }

  /**
   * Every subtask of attempt {@code attempt}, vertex by vertex, restoring {@code restoreFrom}
   * (verified), or fresh when null.
   *
   * @param claimed whether the restored state backends go on as the databases they were: their next
   *     checkpoints refer to the restored shared files (see {@link TaskRestore#claimed})
   */
  List<TaskDeploymentDescriptor> create(
      int attempt, RetainedCheckpoint restoreFrom, boolean claimed) {
    List<TaskDeploymentDescriptor> descriptors = new ArrayList<>();
    for (JobVertex vertex : graph.vertices()) {
      List<TaskRestore> restores = assignState(vertex, restoreFrom, claimed);
      for (int i = 0; i < vertex.getParallelism(); i++) {
        descriptors.add(
            new TaskDeploymentDescriptor(
                new ExecutionAttemptId(jobId, vertex.getIndex(), i, attempt),
                graph,
                checkpointing,
                restores.get(i)));
      }
    }
    return descriptors;
  }

  /**
   * Every subtask's share of {@code restoreFrom} for {@code vertex}, or a fresh start; a source
   * without state of its own in the checkpoint creates its splits.
   */
  private List<TaskRestore> assignState(
      JobVertex vertex, RetainedCheckpoint restoreFrom, boolean claimed) {
    int parallelism = vertex.getParallelism();
    boolean needsSplits =
        vertex.isSource()
            && (restoreFrom == null
                || restoreFrom.checkpoint().operator(vertex.getHead().getOperatorId()) == null);
    List<AssignedSplits> fresh = new ArrayList<>();
    for (int i = 0; i < parallelism; i++) {
      fresh.add(AssignedSplits.NONE);
    }
    if (needsSplits) {
      fresh = freshSplits(vertex);
    }
    List<TaskRestore> restores;
    if (restoreFrom == null) {
      restores = new ArrayList<>();
      for (int i = 0; i < parallelism; i++) {
        restores.add(TaskRestore.fresh(fresh.get(i)));
      }
    } else {
      restores =
          StateAssignment.assign(
              vertex,
              vertex.getMaxParallelism(),
              restoreFrom.checkpoint(),
              restoreFrom.storage(),
              claimed,
              fresh);
    }
    return vertex.isSource() ? dealToOwners(vertex, restores) : restores;
  }

  /**
   * Moves every split whose source names an owner ({@link Source#ownerOf}) to that subtask, fresh
   * and restored splits alike. Sources without owners keep the round-robin assignment; only split
   * metadata is read for this, never keyed or operator state.
   */
  @SuppressWarnings({"unchecked", "rawtypes"})
  private List<TaskRestore> dealToOwners(JobVertex vertex, List<TaskRestore> restores) {
    StreamNode head = vertex.getHead();
    Source source = ((SourceTransformation<?>) head.getTransformation()).getSource();
    int parallelism = vertex.getParallelism();
    List<List<StateElement>> dealt = new ArrayList<>();
    for (int i = 0; i < parallelism; i++) {
      dealt.add(new ArrayList<>());
    }
    List<StateElement> watermarks = new ArrayList<>();
    boolean moved = false;
    try {
      for (int i = 0; i < restores.size(); i++) {
        TaskRestore restore = restores.get(i);
        SerializedSplits read = restore.readSplits();
        for (byte[] element : read.watermarks()) {
          watermarks.add(new StateElement.Inline(element)); // goes wherever its split goes
        }
        for (byte[] element : read.splits()) {
          Object split = SourceStreamTask.deserializeSplit(element, source.getSplitSerializer());
          int owner = source.ownerOf(split, parallelism).orElse(i);
          if (owner < 0 || owner >= parallelism) {
            throw new IllegalStateException(
                "Source '"
                    + head.getName()
                    + "' names subtask "
                    + owner
                    + " as the owner of split "
                    + split
                    + ", but it runs with parallelism "
                    + parallelism);
          }
          moved |= owner != i;
          dealt.get(owner).add(new StateElement.Inline(element));
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(
          "Cannot read the splits of source '" + head.getName() + "': " + e.getMessage(), e);
    }
    if (!moved) {
      return restores;
    }
    List<TaskRestore> result = new ArrayList<>();
    for (int i = 0; i < parallelism; i++) {
      // Every subtask gets every split watermark and keeps those of the splits it reads.
      result.add(restores.get(i).withSplits(new AssignedSplits(dealt.get(i), watermarks)));
    }
    return result;
  }

  /**
   * A source's splits for a fresh start, dealt round robin, serialized as a checkpoint has them.
   */
  @SuppressWarnings({"unchecked", "rawtypes"})
  private List<AssignedSplits> freshSplits(JobVertex vertex) {
    StreamNode head = vertex.getHead();
    Source source = ((SourceTransformation<?>) head.getTransformation()).getSource();
    int parallelism = vertex.getParallelism();
    List<Object> all;
    try {
      all = (List<Object>) source.createSplits(parallelism);
    } catch (Exception e) {
      throw new IllegalStateException(
          "Source '" + head.getName() + "' could not create its splits: " + e, e);
    }
    List<List<StateElement>> perSubtask = new ArrayList<>();
    for (int i = 0; i < parallelism; i++) {
      perSubtask.add(new ArrayList<>());
    }
    for (int i = 0; i < all.size(); i++) {
      try {
        perSubtask
            .get(i % parallelism)
            .add(
                new StateElement.Inline(
                    SourceStreamTask.serializeSplit(all.get(i), source.getSplitSerializer())));
      } catch (IOException e) {
        throw new UncheckedIOException(
            "Source '" + head.getName() + "' could not serialize its split " + all.get(i), e);
      }
    }
    List<AssignedSplits> result = new ArrayList<>();
    for (List<StateElement> splits : perSubtask) {
      result.add(new AssignedSplits(splits, List.of()));
    }
    return result;
  }
}

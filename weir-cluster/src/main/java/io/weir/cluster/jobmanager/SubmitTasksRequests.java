package io.weir.cluster.jobmanager;

import com.google.protobuf.ByteString;
import io.weir.cluster.client.JobProgram;
import io.weir.cluster.rpc.JobPayload;
import io.weir.cluster.rpc.Messages;
import io.weir.cluster.rpc.RestoreStorage;
import io.weir.cluster.rpc.SubmitTasksRequest;
import io.weir.cluster.rpc.TaskDeployment;
import io.weir.cluster.rpc.VertexLocations;
import io.weir.runtime.checkpoint.TaskRestore;
import io.weir.runtime.graph.JobGraph;
import io.weir.runtime.graph.JobVertex;
import io.weir.runtime.graph.PlanDescription;
import io.weir.runtime.storage.DeploymentSerializer;
import io.weir.runtime.storage.StorageReference;
import io.weir.runtime.taskexecutor.TaskDeploymentDescriptor;
import java.util.ArrayList;
import java.util.List;

/**
 * The control-plane messages that deploy an attempt's subtasks on a TaskManager: the job (its
 * program, configuration and plan, from which the TaskManager rebuilds it), each subtask with its
 * checkpoint settings and what it restores (handles, and a {@link StorageReference} the TaskManager
 * resolves, never a storage object), and where the attempt's subtasks run when it spans several
 * TaskManagers.
 */
final class SubmitTasksRequests {

  private SubmitTasksRequests() {}

  /**
   * Where every subtask of {@code graph} runs, vertex by vertex, as {@code placement} puts them;
   * empty when the attempt runs on one TaskManager, whose channels are all local.
   */
  static List<VertexLocations> locations(
      SlotPlacement<TaskManagerRegistry.TaskManager> placement, JobGraph graph) {
    List<VertexLocations> locations = new ArrayList<>();
    if (placement.spansSeveralTaskManagers()) {
      for (JobVertex vertex : graph.vertices()) {
        locations.add(
            VertexLocations.newBuilder()
                .setVertex(vertex.getIndex())
                .addAllAddresses(
                    placement.addresses(
                        graph, vertex, TaskManagerRegistry.TaskManager::dataAddress))
                .build());
      }
    }
    return locations;
  }

  /** The request that deploys {@code descriptors}, subtasks of the job {@code program} runs. */
  static SubmitTasksRequest of(
      JobProgram program,
      List<TaskDeploymentDescriptor> descriptors,
      List<VertexLocations> locations) {
    TaskDeploymentDescriptor first = descriptors.get(0);
    JobPayload payload =
        JobPayload.newBuilder()
            .setJobId(first.id().jobId())
            .setJobName(first.graph().jobName())
            .setJarId(program.jarId())
            .setEntryClass(program.entryClass())
            .addAllArgs(program.args())
            .putAllConfiguration(first.graph().configuration().toMap())
            .addAllPlan(PlanDescription.of(first.graph()))
            .build();
    SubmitTasksRequest.Builder request =
        SubmitTasksRequest.newBuilder().setJob(payload).addAllLocations(locations);
    for (TaskDeploymentDescriptor tdd : descriptors) {
      request.addTasks(task(tdd));
    }
    return request.build();
  }

  private static TaskDeployment.Builder task(TaskDeploymentDescriptor tdd) {
    TaskRestore restore = tdd.restore();
    TaskDeployment.Builder task =
        TaskDeployment.newBuilder()
            .setId(Messages.toProto(tdd.id()))
            .setCheckpointingEnabled(tdd.checkpointing().enabled())
            .setExactlyOnce(tdd.checkpointing().exactlyOnce())
            .setAlignment(tdd.checkpointing().alignment().name())
            .setAlignedTimeoutMillis(tdd.checkpointing().alignedTimeoutMillis())
            .setRestore(ByteString.copyFrom(DeploymentSerializer.serializeRestore(restore)));
    if (restore.storage() == null) {
      task.setRestoreStorage(RestoreStorage.NONE);
    } else {
      // A reference the TaskManager resolves with the job's configuration, never the object.
      StorageReference reference = restore.storage().reference();
      switch (reference.kind()) {
        case JOB -> task.setRestoreStorage(RestoreStorage.JOB);
        case CHECKPOINT ->
            task.setRestoreStorage(RestoreStorage.EXTERNAL).setRestorePointer(reference.pointer());
      }
    }
    return task;
  }
}

package io.weir.cluster.rest.handlers;

import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.weir.cluster.jobmanager.TaskManagerRegistry;
import io.weir.cluster.rest.AbstractRestHandler;
import io.weir.cluster.rest.RestException;
import io.weir.cluster.rest.RestRequest;
import io.weir.cluster.rest.messages.TaskManagersResponse;
import io.weir.cluster.rpc.Messages;
import io.weir.cluster.rpc.TaskManagerStatus;
import java.util.ArrayList;
import java.util.List;

/** {@code GET /taskmanagers}: each TaskManager as of its last heartbeat. */
final class TaskManagersHandler extends AbstractRestHandler {
  private final TaskManagerRegistry registry;

  TaskManagersHandler(TaskManagerRegistry registry) {
    super(HttpMethod.GET, "/taskmanagers");
    this.registry = registry;
  }

  @Override
  public TaskManagersResponse handle(RestRequest request) {
    List<TaskManagersResponse.TaskManagerInfo> infos = new ArrayList<>();
    for (TaskManagerRegistry.TaskManager tm : registry.taskManagers()) {
      infos.add(info(tm));
    }
    return new TaskManagersResponse(infos);
  }

  /**
   * The registered TaskManager of id {@code id}.
   *
   * @throws RestException 404 naming it
   */
  static TaskManagerRegistry.TaskManager find(TaskManagerRegistry registry, String id) {
    for (TaskManagerRegistry.TaskManager tm : registry.taskManagers()) {
      if (tm.id().equals(id)) {
        return tm;
      }
    }
    throw new RestException(
        HttpResponseStatus.NOT_FOUND,
        "No TaskManager " + id + " is registered: list them with GET /taskmanagers");
  }

  /** {@code tm} as of its last heartbeat. */
  static TaskManagersResponse.TaskManagerInfo info(TaskManagerRegistry.TaskManager tm) {
    TaskManagerStatus status = tm.status();
    return new TaskManagersResponse.TaskManagerInfo(
        tm.id(),
        tm.address(),
        tm.dataPort(),
        tm.slots(),
        tm.freeSlots(),
        new TaskManagersResponse.Hardware(
            status.getHardware().getCpuCores(),
            status.getHardware().getPhysicalMemory(),
            status.getHardware().getJvmHeap(),
            0),
        status.getRunningList().stream().map(t -> Messages.fromProto(t).toString()).toList(),
        List.copyOf(status.getLoadedJobsList()),
        status.getOutputBuffers(),
        status.getOutputBuffers() * status.getBufferSize());
  }
}

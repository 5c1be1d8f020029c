package io.weir.cluster.rest.messages;

import java.util.List;

/**
 * {@code GET /taskmanagers}: the registered TaskManagers.
 *
 * @param taskmanagers each, in registration order
 */
public record TaskManagersResponse(List<TaskManagerInfo> taskmanagers) {

  /**
   * One TaskManager as of its last heartbeat.
   *
   * @param id its id
   * @param path its control address
   * @param dataPort the port its data plane is reached at, on the host of {@code path}
   * @param slotsNumber its slots
   * @param freeSlots its slots no job holds
   * @param tasks the tasks running there
   * @param loadedJobs the jobs whose class loader is open there
   * @param outputBuffers network buffers its running tasks' outputs allocated
   * @param outputBufferBytes the same in bytes
   */
  public record TaskManagerInfo(
      String id,
      String path,
      int dataPort,
      int slotsNumber,
      int freeSlots,
      List<String> tasks,
      List<String> loadedJobs,
      long outputBuffers,
      long outputBufferBytes) {}
}

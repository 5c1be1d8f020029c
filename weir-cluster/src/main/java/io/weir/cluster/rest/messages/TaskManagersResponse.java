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
   * @param hardware what it runs on
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
      Hardware hardware,
      List<String> tasks,
      List<String> loadedJobs,
      long outputBuffers,
      long outputBufferBytes) {}

  /**
   * What a TaskManager runs on, Flink's fields; all 0 until its first heartbeat.
   *
   * @param cpuCores processors available to its JVM
   * @param physicalMemory the machine's physical memory, bytes (0: unknown)
   * @param freeMemory its JVM's maximum heap, bytes (Flink's name for the same figure)
   * @param managedMemory Flink's managed memory, bytes: 0, as Weir's TaskManagers manage no memory
   *     for their operators
   */
  public record Hardware(int cpuCores, long physicalMemory, long freeMemory, long managedMemory) {}
}

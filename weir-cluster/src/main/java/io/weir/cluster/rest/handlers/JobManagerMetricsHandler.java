package io.weir.cluster.rest.handlers;

import io.weir.api.JobStatus;
import io.weir.cluster.jobmanager.Dispatcher;
import io.weir.cluster.jobmanager.TaskManagerRegistry;
import io.weir.cluster.metrics.JvmStatus;
import io.weir.cluster.rest.RestRequest;
import java.util.List;
import java.util.Map;

/**
 * {@code GET /jobmanager/metrics}: the JobManager's metrics as Flink's REST API serves them, by
 * Flink's names: its JVM's ({@code Status.JVM.Memory.Heap.Used}, {@code Status.JVM.CPU.Load},
 * {@code Status.JVM.GarbageCollector.<collector>.Count}, ...) and the cluster's ({@code
 * numRegisteredTaskManagers}, {@code numRunningJobs}, {@code taskSlotsTotal}, {@code
 * taskSlotsAvailable}). Without {@code ?get=}, their names; with it, their values as text.
 */
final class JobManagerMetricsHandler extends DispatcherGet {

  private final TaskManagerRegistry registry;

  JobManagerMetricsHandler(Dispatcher dispatcher, TaskManagerRegistry registry) {
    super(dispatcher, "/jobmanager/metrics");
    this.registry = registry;
  }

  @Override
  public List<Map<String, String>> handle(RestRequest request) {
    Map<String, String> metrics = JvmStatus.metrics();
    List<TaskManagerRegistry.TaskManager> tms = registry.taskManagers();
    metrics.put("numRegisteredTaskManagers", String.valueOf(tms.size()));
    metrics.put(
        "numRunningJobs",
        String.valueOf(
            dispatcher.jobs().stream().filter(j -> j.status() == JobStatus.RUNNING).count()));
    metrics.put(
        "taskSlotsTotal",
        String.valueOf(tms.stream().mapToInt(TaskManagerRegistry.TaskManager::slots).sum()));
    metrics.put(
        "taskSlotsAvailable",
        String.valueOf(tms.stream().mapToInt(TaskManagerRegistry.TaskManager::freeSlots).sum()));
    return MetricQuery.namesOrValues(metrics, request.queryParameter("get"));
  }
}

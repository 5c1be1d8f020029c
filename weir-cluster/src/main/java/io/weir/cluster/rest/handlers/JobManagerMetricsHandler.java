package io.weir.cluster.rest.handlers;

import io.weir.api.JobStatus;
import io.weir.cluster.jobmanager.Dispatcher;
import io.weir.cluster.jobmanager.TaskManagerRegistry;
import io.weir.cluster.rest.RestRequest;
import io.weir.runtime.metrics.MetricDump;
import java.lang.management.ClassLoadingMXBean;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryUsage;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

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
    Map<String, String> metrics = jvm();
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

  /** This JVM's metrics by Flink's names ({@code Status.JVM.*}). */
  static Map<String, String> jvm() {
    Map<String, String> metrics = new TreeMap<>();
    MemoryUsage heap = ManagementFactory.getMemoryMXBean().getHeapMemoryUsage();
    MemoryUsage nonHeap = ManagementFactory.getMemoryMXBean().getNonHeapMemoryUsage();
    put(metrics, "Status.JVM.Memory.Heap", heap);
    put(metrics, "Status.JVM.Memory.NonHeap", nonHeap);
    metrics.put(
        "Status.JVM.Threads.Count",
        String.valueOf(ManagementFactory.getThreadMXBean().getThreadCount()));
    ClassLoadingMXBean classes = ManagementFactory.getClassLoadingMXBean();
    metrics.put(
        "Status.JVM.ClassLoader.ClassesLoaded", String.valueOf(classes.getTotalLoadedClassCount()));
    metrics.put(
        "Status.JVM.ClassLoader.ClassesUnloaded", String.valueOf(classes.getUnloadedClassCount()));
    if (ManagementFactory.getOperatingSystemMXBean()
        instanceof com.sun.management.OperatingSystemMXBean os) {
      metrics.put("Status.JVM.CPU.Load", String.valueOf(Math.max(0, os.getProcessCpuLoad())));
      metrics.put("Status.JVM.CPU.Time", String.valueOf(os.getProcessCpuTime()));
    }
    for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
      String prefix = "Status.JVM.GarbageCollector." + MetricDump.filter(gc.getName());
      metrics.put(prefix + ".Count", String.valueOf(gc.getCollectionCount()));
      metrics.put(prefix + ".Time", String.valueOf(gc.getCollectionTime()));
    }
    return metrics;
  }

  private static void put(Map<String, String> metrics, String prefix, MemoryUsage usage) {
    metrics.put(prefix + ".Used", String.valueOf(usage.getUsed()));
    metrics.put(prefix + ".Committed", String.valueOf(usage.getCommitted()));
    metrics.put(prefix + ".Max", String.valueOf(usage.getMax()));
  }
}

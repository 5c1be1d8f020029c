package io.weir.cluster.metrics;

import io.weir.cluster.rpc.Hardware;
import io.weir.runtime.metrics.MetricDump;
import java.lang.management.ClassLoadingMXBean;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryUsage;
import java.util.Map;
import java.util.TreeMap;

/**
 * A process's JVM as Flink's REST API names its metrics ({@code Status.JVM.Memory.Heap.Used},
 * {@code Status.JVM.CPU.Load}, {@code Status.JVM.GarbageCollector.<collector>.Count}, ...), read
 * from the platform's MXBeans when asked: the JobManager's for {@code /jobmanager/metrics}, each
 * TaskManager's with its status at every heartbeat for {@code /taskmanagers/:id/metrics}.
 */
public final class JvmStatus {

  private JvmStatus() {}

  /** This JVM's metrics by Flink's names ({@code Status.JVM.*}). */
  public static Map<String, String> metrics() {
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

  /** The machine and JVM this process runs on, as Flink's {@code HardwareDescription}. */
  public static Hardware hardware() {
    long physical =
        ManagementFactory.getOperatingSystemMXBean()
                instanceof com.sun.management.OperatingSystemMXBean os
            ? os.getTotalMemorySize()
            : 0;
    return Hardware.newBuilder()
        .setCpuCores(Runtime.getRuntime().availableProcessors())
        .setPhysicalMemory(physical)
        .setJvmHeap(Runtime.getRuntime().maxMemory())
        .build();
  }

  private static void put(Map<String, String> metrics, String prefix, MemoryUsage usage) {
    metrics.put(prefix + ".Used", String.valueOf(usage.getUsed()));
    metrics.put(prefix + ".Committed", String.valueOf(usage.getCommitted()));
    metrics.put(prefix + ".Max", String.valueOf(usage.getMax()));
  }
}

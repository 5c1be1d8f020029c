package io.weir.benchmarks.w8;

import io.weir.benchmarks.Engine;
import io.weir.benchmarks.Workload;
import java.time.Duration;
import java.util.Map;

/** W8 as the runner registers it (one line in {@code Workloads}); see {@link W8Run}. */
public final class W8 {
  private W8() {}

  public static final Workload WORKLOAD =
      new Workload(
          "W8",
          "cluster",
          W8Run.DEFAULT_RECORDS,
          W8Run.CONFIGS,
          Map.of(Engine.WEIR, WeirW8.class, Engine.FLINK, FlinkW8.class),
          Duration.ZERO,
          "embedded = W1 with a checkpoint every 1 s in one JVM (Weir's embedded cluster, Flink's"
              + " mini cluster); cluster = the same job on 1 JobManager + 2 TaskManager JVMs of 1"
              + " slot each, timed from submission to the end-time the JobManager reports over"
              + " REST; single-tm = the"
              + " same on 1 TaskManager JVM of 2 slots (no channel crosses the network);"
              + " recovery = cluster"
              + " with a spare TaskManager registered and one working TaskManager SIGKILLed after"
              + " 2 completed checkpoints (heartbeat 1 s / timeout 5 s on both); embedded-warm,"
              + " cluster-warm = embedded and cluster timed on their second job, after the same job"
              + " ran once untimed in the same JVMs (a session cluster's later jobs);"
              + " recoveryMs = from the SIGKILL to the first record the keyed function processed"
              + " after the restore;"
              + " failedMs = from the SIGKILL to the first failure in the job's exception history;"
              + " failures = entries in that history; startMs = from the submission to the first"
              + " record processed (deployment and start-up); checkpoints = completed in the whole"
              + " run (n/a embedded); clusterPeakRssKb = peak RSS of the JobManager and all"
              + " TaskManager JVMs summed, kB (a killed one as just before the SIGKILL; the peak"
              + " RSS table has the benchmark JVM's own)");
}

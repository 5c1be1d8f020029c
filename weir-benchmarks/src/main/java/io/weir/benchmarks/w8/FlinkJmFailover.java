package io.weir.benchmarks.w8;

import io.weir.benchmarks.Engine;

/**
 * JM-FAILOVER on Flink ({@link JmFailover}): a standalone session cluster whose JobManagers are
 * {@code StandaloneSessionClusterEntrypoint}s under ZooKeeper high availability. Arguments: {@code
 * <step1|step2> [records]} (Flink runs the same in both).
 */
public final class FlinkJmFailover {
  private FlinkJmFailover() {}

  public static void main(String[] args) {
    JmFailover.main(
        Engine.FLINK,
        args,
        FlinkBenchCluster::leaderZnode,
        (dir, jobSettings, clusterSettings, zooKeeper) ->
            new FlinkBenchCluster(dir, jobSettings, 1, clusterSettings, zooKeeper));
  }
}

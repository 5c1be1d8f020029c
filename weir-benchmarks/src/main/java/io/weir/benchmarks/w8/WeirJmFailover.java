package io.weir.benchmarks.w8;

import io.weir.benchmarks.Engine;

/**
 * JM-FAILOVER on Weir ({@link JmFailover}): {@code ClusterMain} JobManagers and TaskManagers under
 * ZooKeeper high availability. Arguments: {@code <step1|step2> [records]}.
 */
public final class WeirJmFailover {
  private WeirJmFailover() {}

  public static void main(String[] args) {
    JmFailover.main(
        Engine.WEIR,
        args,
        WeirBenchCluster::leaderZnode,
        (dir, jobSettings, clusterSettings, zooKeeper) ->
            new WeirBenchCluster(dir, jobSettings, 1, clusterSettings));
  }
}

package io.weir.benchmarks.w8;

import java.io.IOException;
import java.time.Duration;
import java.util.Optional;

/**
 * A {@link BenchCluster} under ZooKeeper high availability, Weir's or Flink's, as {@link
 * JmFailover} drives it: any number of JobManager processes, one of which leads as ZooKeeper
 * decides, and TaskManagers that follow the leader ZooKeeper publishes. The {@link BenchCluster}
 * calls go to the leader's REST API, the one {@link #awaitLeader} found last. Used from the
 * benchmark's main thread.
 */
interface HaBenchCluster extends BenchCluster {

  /**
   * Starts one more JobManager process (the leader if none leads, else a standby) and returns at
   * once, without waiting for it to serve: see {@link #awaitServing}.
   */
  JobManager startJobManager() throws IOException;

  /** Returns once {@code jobManager} serves (its REST endpoint is open). */
  void awaitServing(JobManager jobManager) throws IOException, InterruptedException;

  /**
   * The JobManager that leads now, waiting up to {@code timeout} for one; the {@link BenchCluster}
   * calls go to it from now on.
   */
  JobManager awaitLeader(Duration timeout) throws IOException, InterruptedException;

  /** The znode where the leader publishes itself, the one TaskManagers and clients follow. */
  String leaderZnode();

  /** The leader's REST port, from the data of its {@link #leaderZnode}. */
  int leaderRestPort(byte[] znodeData) throws IOException;

  /** The leader as ZooKeeper holds it now, or empty while none is published. */
  default Optional<PublishedLeader> publishedLeader(ZooKeeperServer zooKeeper) throws IOException {
    Optional<ZooKeeperServer.Znode> znode = zooKeeper.latest(leaderZnode());
    if (znode.isEmpty() || !znode.get().present()) {
      return Optional.empty();
    }
    return Optional.of(
        new PublishedLeader(leaderRestPort(znode.get().data()), znode.get().mtimeMillis()));
  }

  /** The REST API of the leader {@link #awaitLeader} found last. */
  Rest rest();

  /** A JobManager process and its REST port. */
  record JobManager(JvmProcess process, int restPort) {}

  /**
   * A leader as ZooKeeper holds it.
   *
   * @param restPort its REST port
   * @param sinceMillis when it wrote the znode (epoch milliseconds, ZooKeeper's clock, this
   *     machine's)
   */
  record PublishedLeader(int restPort, long sinceMillis) {}
}

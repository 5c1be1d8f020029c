package io.weir.cluster.ha;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryOneTime;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/** Connecting to ZooKeeper, and refusing what cannot work, against a real server. */
class ZooKeeperHaServicesTest {

  @TempDir static Path dir;

  @RegisterExtension
  static final ZooKeeperServerExtension ZOOKEEPER = new ZooKeeperServerExtension();

  @Test
  void everythingLivesBelowTheRootPathAndTheClusterId() throws Exception {
    try (ZooKeeperHaServices services =
            ZooKeeperHaServices.start(
                HaTesting.configuration(ZOOKEEPER.connectString(), dir.resolve("storage")));
        CuratorFramework raw =
            CuratorFrameworkFactory.newClient(ZOOKEEPER.connectString(), new RetryOneTime(100))) {
      services.client().create().creatingParentsIfNeeded().forPath("/jobs/ab12");
      raw.start();
      assertThat(raw.checkExists().forPath("/weir/test/jobs/ab12")).isNotNull();
      assertThat(services.clusterStorageDirectory()).endsWith("/storage/test");
      assertThat(dir.resolve("storage/test")).isDirectory();
    }
  }

  @Test
  void aQuorumThatDoesNotAnswerIsReportedAfterTheConnectionTimeout() throws Exception {
    int closedPort;
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      closedPort = s.getLocalPort();
    }
    String quorum = "127.0.0.1:" + closedPort;
    long start = System.nanoTime();
    assertThatThrownBy(
            () -> ZooKeeperHaServices.start(HaTesting.configuration(quorum, dir.resolve("s2"))))
        .isInstanceOf(HighAvailabilityException.class)
        .hasMessageContaining("Cannot reach ZooKeeper at '" + quorum + "'")
        .hasMessageContaining("high-availability.zookeeper.quorum")
        .hasMessageContaining("within 1000 ms")
        .hasMessageContaining("high-availability.zookeeper.client.connection-timeout");
    assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(5));
  }

  @Test
  void aStorageDirectoryThatCannotBeWrittenIsRefusedNamingTheKey() throws Exception {
    Path file = Files.writeString(dir.resolve("a-file"), "not a directory");
    assertThatThrownBy(
            () ->
                ZooKeeperHaServices.start(
                    HaTesting.configuration(ZOOKEEPER.connectString(), file.resolve("ha"))))
        .isInstanceOf(HighAvailabilityException.class)
        .hasMessageContaining("high-availability.storageDir")
        .hasMessageContaining(file.resolve("ha").toString());
  }

  @Test
  void twoClustersWithOneClusterIdAreRefusedAndOneClusterMayStartManyJobManagers() {
    var first = HaTesting.configuration(ZOOKEEPER.connectString(), dir.resolve("one"));
    first.setString("high-availability.cluster-id", "shared-id");
    var sameCluster = HaTesting.configuration(ZOOKEEPER.connectString(), dir.resolve("one"));
    sameCluster.setString("high-availability.cluster-id", "shared-id");
    var otherCluster = HaTesting.configuration(ZOOKEEPER.connectString(), dir.resolve("two"));
    otherCluster.setString("high-availability.cluster-id", "shared-id");
    try (ZooKeeperHaServices a = ZooKeeperHaServices.start(first);
        ZooKeeperHaServices b = ZooKeeperHaServices.start(sameCluster)) {
      assertThat(b.clusterStorageDirectory()).isEqualTo(a.clusterStorageDirectory());

      assertThatThrownBy(() -> ZooKeeperHaServices.start(otherCluster))
          .isInstanceOf(HighAvailabilityException.class)
          .hasMessageContaining("The cluster id 'shared-id' (high-availability.cluster-id)")
          .hasMessageContaining(a.clusterStorageDirectory())
          .hasMessageContaining("give each cluster its own cluster id");
    }
  }
}

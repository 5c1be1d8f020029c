package io.weir.cluster.ha;

import static io.weir.cluster.ha.HaTesting.closeQuietly;
import static org.assertj.core.api.Assertions.assertThat;

import io.weir.cluster.ha.HaTesting.RecordingContender;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.apache.curator.test.InstanceSpec;
import org.apache.curator.test.TestingCluster;
import org.apache.curator.test.TestingZooKeeperServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Three real ZooKeeper servers, two of which go away: no leader without a quorum. */
class QuorumLossTest {

  @TempDir Path dir;

  @Test
  void withoutAQuorumNobodyLeadsAndAfterItANewEpochDoes() throws Exception {
    List<InstanceSpec> specs = new ArrayList<>();
    for (int i = 1; i <= 3; i++) {
      specs.add(
          new InstanceSpec(
              Files.createDirectories(dir.resolve("zk" + i)).toFile(),
              -1,
              -1,
              -1,
              true,
              i,
              200,
              -1));
    }
    List<AutoCloseable> open = new ArrayList<>();
    try (TestingCluster zk = new TestingCluster(specs)) {
      zk.start();
      // A new ensemble answers once it has elected its own leader: the first connection may
      // take longer than the 1 s the other tests allow.
      ZooKeeperHaServices a =
          ZooKeeperHaServices.start(
              HaTesting.configuration(zk.getConnectString(), dir.resolve("ha"))
                  .setString("high-availability.zookeeper.client.connection-timeout", "30 s"));
      open.add(a);
      ZooKeeperHaServices b =
          ZooKeeperHaServices.start(
              HaTesting.configuration(zk.getConnectString(), dir.resolve("ha"))
                  .setString("high-availability.zookeeper.client.connection-timeout", "30 s"));
      open.add(b);
      RecordingContender first = new RecordingContender();
      open.add(a.leaderElection("jm-a", "jm-a:6123", "http://jm-a:8081", first));
      LeaderEpoch epochA = first.awaitGrant();
      RecordingContender second = new RecordingContender();
      open.add(b.leaderElection("jm-b", "jm-b:6123", "http://jm-b:8081", second));

      List<TestingZooKeeperServer> servers = zk.getServers();
      servers.get(0).kill();
      servers.get(1).kill();
      first.awaitRevocation();
      long quorumBackAt = System.nanoTime();
      servers.get(0).restart();

      // Whoever leads next leads with a newer epoch, and only once the quorum is back.
      RecordingContender winner = null;
      LeaderEpoch next = null;
      while (next == null) {
        for (RecordingContender c : List.of(first, second)) {
          Optional<LeaderEpoch> event = c.events.poll(50, TimeUnit.MILLISECONDS);
          if (event != null && event.isPresent()) {
            winner = c;
            next = event.get();
          }
        }
        assertThat(TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - quorumBackAt))
            .as("seconds without a leader after the quorum returned")
            .isLessThan(15);
      }
      assertThat(second.grantedAt).allMatch(t -> t > quorumBackAt);
      assertThat(first.grantedAt.subList(1, first.grantedAt.size()))
          .allMatch(t -> t > quorumBackAt);
      assertThat(winner.grantedAt).isNotEmpty();
      assertThat(next.value()).isGreaterThan(epochA.value());
    } finally {
      for (int i = open.size() - 1; i >= 0; i--) {
        closeQuietly(open.get(i));
      }
    }
  }
}

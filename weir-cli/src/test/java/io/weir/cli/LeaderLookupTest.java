package io.weir.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.weir.cluster.ClusterOptions;
import io.weir.cluster.jobmanager.JobManager;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.apache.curator.test.InstanceSpec;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code -m zookeeper}: a client command finds the leading JobManager of a highly available cluster
 * through a real ZooKeeper server, with the settings of the cluster's config.yaml.
 */
class LeaderLookupTest {

  private static TestingServer zooKeeper;
  private static JobManager jobManager;
  @TempDir static Path dir;

  private static String config(String clusterId) {
    return String.join(
        "\n",
        "high-availability.type: zookeeper",
        "high-availability.zookeeper.quorum: " + zooKeeper.getConnectString(),
        "high-availability.storageDir: " + dir.resolve("ha").toUri(),
        "high-availability.cluster-id: " + clusterId,
        "high-availability.zookeeper.client.connection-timeout: 2 s",
        "");
  }

  @BeforeAll
  static void startCluster() throws Exception {
    zooKeeper =
        new TestingServer(
            new InstanceSpec(
                Files.createTempDirectory("zookeeper-").toFile(), -1, -1, -1, true, -1, 200, -1),
            true);
    Files.createDirectories(dir.resolve("conf"));
    Files.writeString(dir.resolve("conf/config.yaml"), config("lookup"));
    jobManager =
        new JobManager(
            ClusterOptions.load(
                dir.resolve("conf/config.yaml"),
                Map.of(
                    ClusterOptions.JM_PORT.key(), "0",
                    ClusterOptions.REST_PORT.key(), "0",
                    ClusterOptions.UPLOAD_DIR.key(), dir.resolve("jars").toString())));
  }

  @AfterAll
  static void stopCluster() throws Exception {
    if (jobManager != null) {
      jobManager.close();
    }
    if (zooKeeper != null) {
      zooKeeper.close();
    }
  }

  @Test
  void listFindsTheLeaderThroughZooKeeper() {
    Cli.Result result =
        Cli.run("list", "-m", "zookeeper", "--conf-dir", dir.resolve("conf").toString());

    // Nothing else serves REST here: a zero exit means the leader's REST port answered.
    assertThat(result.exitCode()).as(result.toString()).isZero();
  }

  @Test
  void aClusterIdWithoutALeaderIsNamedAfterABoundedWait() throws Exception {
    Path other = Files.createDirectories(dir.resolve("other"));
    Files.writeString(other.resolve("config.yaml"), config("nobody-here"));

    Cli.Result result = Cli.run("list", "-m", "zookeeper", "--conf-dir", other.toString());

    assertThat(result.exitCode()).as(result.toString()).isNotZero();
    assertThat(result.err())
        .contains("No JobManager leads the cluster 'nobody-here' (high-availability.cluster-id)")
        .doesNotContain("\tat ");
  }

  @Test
  void withoutAConfigurationDirectoryTheCommandSaysWhereToGiveIt() {
    Cli.Result result = Cli.run("list", "-m", "zookeeper");

    // $WEIR_CONF_DIR is not set where the tests run.
    assertThat(result.exitCode()).as(result.toString()).isNotZero();
    assertThat(result.err()).contains("--conf-dir DIR (or $WEIR_CONF_DIR)");
  }
}

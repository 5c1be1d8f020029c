package io.weir.cluster.ha;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.weir.api.config.Configuration;
import io.weir.api.config.KnownKeys;
import io.weir.cluster.ClusterOptions;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

class HighAvailabilityOptionsTest {

  @Test
  void noneIsTheDefaultAndZooKeeperIsReadFromTheOldKeyToo() {
    assertThat(HighAvailabilityOptions.isZooKeeper(new Configuration())).isFalse();
    Configuration old = new Configuration().setString("high-availability", "ZooKeeper");
    assertThat(HighAvailabilityOptions.isZooKeeper(old)).isTrue();
    assertThat(KnownKeys.deprecationWarnings(old))
        .containsExactly(
            "Configuration key 'high-availability' is deprecated: use 'high-availability.type'"
                + " instead");
  }

  @Test
  void anUnknownTypeIsRefusedNamingTheKey() {
    Configuration conf = new Configuration().setString("high-availability.type", "kubernetes");
    assertThatThrownBy(() -> HighAvailabilityOptions.isZooKeeper(conf))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("high-availability.type")
        .hasMessageContaining("'kubernetes'")
        .hasMessageContaining("'none' and 'zookeeper'");
  }

  @Test
  void zooKeeperWithoutQuorumOrStorageDirNamesBothKeys() {
    Configuration conf = new Configuration().setString("high-availability.type", "zookeeper");
    assertThatThrownBy(() -> ZooKeeperHaSettings.from(conf))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("high-availability.zookeeper.quorum is not set")
        .hasMessageContaining("high-availability.storageDir is not set");
  }

  @Test
  void badValuesAreEachNamed() {
    Configuration conf =
        new Configuration()
            .setString("high-availability.type", "zookeeper")
            .setString("high-availability.zookeeper.quorum", "zk1:2181,,zk 2:2181")
            .setString("high-availability.storageDir", "/tmp/ha")
            .setString("high-availability.cluster-id", "/my cluster")
            .setString("high-availability.zookeeper.client.session-timeout", "0 s")
            .setString("high-availability.zookeeper.client.max-retry-attempts", "-1");
    assertThatThrownBy(() -> ZooKeeperHaSettings.from(conf))
        .hasMessageContaining("'' is no host:port")
        .hasMessageContaining("'zk 2:2181' is no host:port")
        .hasMessageContaining("high-availability.cluster-id is '/my cluster'")
        .hasMessageContaining("high-availability.zookeeper.client.session-timeout is PT0S")
        .hasMessageContaining("high-availability.zookeeper.client.max-retry-attempts is -1");
  }

  @Test
  void flinksDefaultsAndTheNamespace() {
    ZooKeeperHaSettings s =
        ZooKeeperHaSettings.from(
            new Configuration()
                .setString("high-availability.type", "zookeeper")
                .setString("high-availability.zookeeper.quorum", "zk1:2181,zk2:2181")
                .setString("high-availability.storageDir", "s3://bucket/ha"));
    assertThat(s.namespace()).isEqualTo("weir/default");
    assertThat(s.sessionTimeout()).isEqualTo(Duration.ofSeconds(60));
    assertThat(s.connectionTimeout()).isEqualTo(Duration.ofSeconds(15));
    assertThat(s.retryWait()).isEqualTo(Duration.ofSeconds(5));
    assertThat(s.maxRetryAttempts()).isEqualTo(3);
    assertThat(s.jobManagerLossGrace()).isEqualTo(Duration.ofSeconds(30));
  }

  @Test
  void theKeysAreClusterKeysNotJobDefaults() {
    ClusterOptions options =
        ClusterOptions.of(
            Map.of(
                "high-availability.type", "zookeeper",
                "high-availability.zookeeper.quorum", "zk:2181",
                "execution.checkpointing.interval", "1 s"));
    assertThat(options.unknownKeys()).isEmpty();
    assertThat(options.jobDefaults()).containsOnlyKeys("execution.checkpointing.interval");
    assertThat(KnownKeys.all()).contains("high-availability.jobmanager-loss-grace");
    Configuration misspelled =
        new Configuration().setString("high-availability.zookeeper.qourum", "zk:2181");
    assertThat(KnownKeys.unknown(misspelled))
        .containsExactly(
            "'high-availability.zookeeper.qourum' (did you mean"
                + " 'high-availability.zookeeper.quorum'?)");
  }
}

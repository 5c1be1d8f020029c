package io.weir.connector.files;

import static org.assertj.core.api.Assertions.assertThat;

import io.weir.api.CheckpointingMode;
import io.weir.cluster.MiniCluster;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.params.provider.Arguments;

/**
 * The exactly-once job suite of the file connector, unchanged, on two TaskManagers joined by the
 * Netty data plane: one engine, two deployments. Every attempt of a job of parallelism 2 has one
 * slot on each TaskManager, so its keyed exchanges cross TCP, with injected failures restarting it
 * twenty times.
 */
class ExactlyOnceOnTwoTaskManagersTest extends ExactlyOnceUnderFailuresTest {

  private static MiniCluster cluster;

  static Stream<Arguments> matrix() {
    return Stream.of(
        Arguments.of(CheckpointingMode.EXACTLY_ONCE, "filesystem", 2, "aligned", "hashmap"),
        Arguments.of(CheckpointingMode.EXACTLY_ONCE, "filesystem", 2, "unaligned", "hashmap"),
        Arguments.of(
            CheckpointingMode.EXACTLY_ONCE,
            "filesystem",
            2,
            "aligned-timeout-2ms",
            "rocksdb-incremental"));
  }

  @BeforeAll
  static void startCluster() throws Exception {
    cluster = new MiniCluster(2);
  }

  @AfterAll
  static void stopCluster() {
    cluster.close();
  }

  @BeforeEach
  void runOnTheCluster() {
    cluster.setAsContext();
  }

  @AfterEach
  void backToLocalExecution() {
    MiniCluster.clearContext();
    assertThat(cluster.submittedJobs()).as("the job ran on the two TaskManagers").isPositive();
  }
}

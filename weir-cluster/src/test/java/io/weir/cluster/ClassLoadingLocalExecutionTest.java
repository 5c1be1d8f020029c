package io.weir.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import com.example.classloading.SensorTotalsJob;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The job of {@link ClusterClassLoadingIT} with {@code main} run directly, in local execution: its
 * classes, service entry and resource are on this JVM's class path and the context class loader is
 * the caller's, and it writes the same lines, across the same failure and restore.
 */
@Timeout(120)
class ClassLoadingLocalExecutionTest {

  @Test
  void theUsersJobRunsAsOnTheClusterWithItsClassesOnTheClassPath(@TempDir Path dir)
      throws Exception {
    Path out = dir.resolve("out");

    SensorTotalsJob.main(
        new String[] {out.toString(), dir.resolve("checkpoints").toUri().toString()});

    assertThat(TestCluster.committedLines(out))
        .containsExactlyInAnyOrderElementsOf(SensorTotalsJob.EXPECTED_LINES);
  }
}

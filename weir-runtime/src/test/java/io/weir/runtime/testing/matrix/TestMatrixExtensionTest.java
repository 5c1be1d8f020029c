package io.weir.runtime.testing.matrix;

import static org.assertj.core.api.Assertions.assertThat;

import io.weir.api.StreamEnvironment;
import io.weir.api.config.CheckpointingOptions;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Runs in every selected cell: each test sees its cell's settings, and so do its jobs. */
@TestMatrix
class TestMatrixExtensionTest {

  @Test
  void theCellsSettingsAreSystemPropertiesDuringTheTest(MatrixCell cell) {
    for (Map.Entry<String, String> e : cell.systemProperties().entrySet()) {
      assertThat(System.getProperty(e.getKey())).as(e.getKey()).isEqualTo(e.getValue());
    }
  }

  @Test
  void aJobsEnvironmentRunsOnTheCellsBackend(MatrixCell cell) {
    StreamEnvironment env = StreamEnvironment.create();
    String expected =
        cell.backend().equals("heap") ? CheckpointingOptions.BACKEND_HASHMAP : cell.backend();
    assertThat(env.getConfiguration().get(CheckpointingOptions.STATE_BACKEND)).isEqualTo(expected);
  }

  @Test
  void aJobsDeploymentIsTheCells(MatrixCell cell) {
    assertThat(Deployment.current()).isEqualTo(cell.deployment());
  }
}

package io.weir.runtime.testing.matrix;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.entry;

import java.util.Arrays;
import org.junit.jupiter.api.Test;

class MatrixCellTest {

  @Test
  void aBackendSelectsItsDefaultCellsAndFullAddsTheOthers() {
    assertThat(MatrixCell.select("heap", false)).containsExactly(MatrixCell.HEAP);
    assertThat(MatrixCell.select("rocksdb", false))
        .containsExactly(MatrixCell.ROCKSDB_INCREMENTAL, MatrixCell.ROCKSDB_FULL);
    assertThat(MatrixCell.select("rocksdb", true))
        .containsExactly(
            MatrixCell.ROCKSDB_INCREMENTAL,
            MatrixCell.ROCKSDB_FULL,
            MatrixCell.ROCKSDB_INCREMENTAL_UNALIGNED);
  }

  @Test
  void aSelectionNamingNoDeploymentMeansLocalExecution() {
    assertThat(MatrixCell.select("all", true))
        .containsExactlyElementsOf(
            Arrays.stream(MatrixCell.values())
                .filter(c -> c.deployment() == Deployment.LOCAL)
                .toList());
    assertThat(MatrixCell.select("local", false))
        .containsExactly(MatrixCell.HEAP, MatrixCell.ROCKSDB_INCREMENTAL, MatrixCell.ROCKSDB_FULL);
  }

  @Test
  void aDeploymentSelectsItsCellsAndABackendNarrowsThem() {
    assertThat(MatrixCell.select("mini-cluster", false))
        .containsExactly(MatrixCell.HEAP_MINI_CLUSTER);
    assertThat(MatrixCell.select("mini-cluster", true))
        .containsExactly(MatrixCell.HEAP_MINI_CLUSTER, MatrixCell.ROCKSDB_INCREMENTAL_MINI_CLUSTER);
    assertThat(MatrixCell.select("rocksdb,mini-cluster", true))
        .containsExactly(MatrixCell.ROCKSDB_INCREMENTAL_MINI_CLUSTER);
    assertThat(MatrixCell.select("heap,local,mini-cluster", false))
        .containsExactly(MatrixCell.HEAP, MatrixCell.HEAP_MINI_CLUSTER);
    assertThat(MatrixCell.select("all,local,mini-cluster", true))
        .containsExactly(MatrixCell.values());
  }

  @Test
  void aCellNamedRunsEvenIfItIsNoDefaultOne() {
    assertThat(MatrixCell.select(" heap, ROCKSDB_INCREMENTAL_UNALIGNED ", false))
        .containsExactly(MatrixCell.HEAP, MatrixCell.ROCKSDB_INCREMENTAL_UNALIGNED);
    assertThat(MatrixCell.select("ROCKSDB_INCREMENTAL_MINI_CLUSTER", false))
        .containsExactly(MatrixCell.ROCKSDB_INCREMENTAL_MINI_CLUSTER);
  }

  @Test
  void anUnknownWordIsNamed() {
    assertThatThrownBy(() -> MatrixCell.select("heap,lmdb", false))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("'lmdb'")
        .hasMessageContaining("weir.test.matrix")
        .hasMessageContaining("mini-cluster");
    assertThatThrownBy(() -> MatrixCell.select("heap,minicluster", false))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("'minicluster'");
  }

  @Test
  void theHeapCellSetsNothingSoThatATestsOwnSettingsApply() {
    assertThat(MatrixCell.HEAP.systemProperties()).isEmpty();
    assertThat(MatrixCell.ROCKSDB_FULL.systemProperties())
        .containsEntry("state.backend.type", "rocksdb")
        .containsEntry("execution.checkpointing.incremental", "false")
        .containsEntry("state.backend.rocksdb.write-cache.size", "1");
    assertThat(MatrixCell.HEAP_UNALIGNED.systemProperties())
        .containsExactly(entry("execution.checkpointing.unaligned.enabled", "true"));
  }

  @Test
  void aMiniClusterCellSetsItsDeploymentAndNothingElseOfLocalExecution() {
    assertThat(MatrixCell.HEAP_MINI_CLUSTER.systemProperties())
        .containsExactly(entry("weir.test.deployment", "mini-cluster"));
    assertThat(MatrixCell.ROCKSDB_INCREMENTAL_MINI_CLUSTER.systemProperties())
        .containsEntry("state.backend.type", "rocksdb")
        .containsEntry("execution.checkpointing.incremental", "true")
        .containsEntry("weir.test.deployment", "mini-cluster");
    assertThat(MatrixCell.ROCKSDB_INCREMENTAL.systemProperties())
        .doesNotContainKey("weir.test.deployment");
  }

  @Test
  void theDeploymentWithoutACellIsLocalExecutionAndAnUnknownOneIsNamed() {
    String saved = System.getProperty(Deployment.PROPERTY);
    try {
      System.clearProperty(Deployment.PROPERTY);
      assertThat(Deployment.current()).isEqualTo(Deployment.LOCAL);
      System.setProperty(Deployment.PROPERTY, "yarn");
      assertThatThrownBy(Deployment::current)
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("'yarn'")
          .hasMessageContaining("weir.test.deployment");
    } finally {
      if (saved == null) {
        System.clearProperty(Deployment.PROPERTY);
      } else {
        System.setProperty(Deployment.PROPERTY, saved);
      }
    }
  }
}

package io.weir.runtime.testing.matrix;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** Which cells a test class runs in, and where a cell runs; once, not in every cell. */
class CellSelectionTest {

  @TestMatrix(skip = MatrixCell.ROCKSDB_FULL)
  static final class SkipsRocksDbFull {}

  @TestMatrix(skip = MatrixCell.HEAP_MINI_CLUSTER)
  static final class SkipsMiniCluster {}

  @Test
  void aClassRunsInTheSelectedCellsButThoseItSkips() {
    assertThat(TestMatrixExtension.cells(SkipsRocksDbFull.class, "rocksdb", false))
        .containsExactly(MatrixCell.ROCKSDB_INCREMENTAL);
    assertThat(TestMatrixExtension.cells(SkipsMiniCluster.class, "heap,local,mini-cluster", false))
        .containsExactly(MatrixCell.HEAP);
    assertThat(TestMatrixExtension.cells(SkipsMiniCluster.class, "mini-cluster", false)).isEmpty();
  }

  @Test
  void aCellWhoseBackendOrDeploymentIsNotOnTheClassPathSaysWhereItRuns() {
    assertThat(MatrixCell.HEAP.whyNotHere()).isEmpty();
    assertThat(Deployment.LOCAL.isAvailable()).isTrue();
    assertThat(Deployment.MINI_CLUSTER.isAvailable())
        .as("weir-runtime has no mini cluster")
        .isFalse();
    assertThat(MatrixCell.HEAP_MINI_CLUSTER.whyNotHere())
        .hasValueSatisfying(
            why ->
                assertThat(why)
                    .contains("HEAP_MINI_CLUSTER", "mini-cluster", "weir-cluster")
                    .contains("-Dweir.test.matrix=HEAP_MINI_CLUSTER"));
    assertThat(MatrixCell.ROCKSDB_FULL.whyNotHere())
        .hasValueSatisfying(why -> assertThat(why).contains("ROCKSDB_FULL", "weir-state-rocksdb"));
  }
}

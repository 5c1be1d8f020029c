package io.weir.runtime.testing.matrix;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

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
    assertThat(MatrixCell.select("all", true)).containsExactly(MatrixCell.values());
  }

  @Test
  void aCellNamedRunsEvenIfItIsNoDefaultOne() {
    assertThat(MatrixCell.select(" heap, ROCKSDB_INCREMENTAL_UNALIGNED ", false))
        .containsExactly(MatrixCell.HEAP, MatrixCell.ROCKSDB_INCREMENTAL_UNALIGNED);
  }

  @Test
  void anUnknownWordIsNamed() {
    assertThatThrownBy(() -> MatrixCell.select("heap,lmdb", false))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("'lmdb'")
        .hasMessageContaining("weir.test.matrix");
  }

  @Test
  void theHeapCellSetsNothingSoThatATestsOwnSettingsApply() {
    assertThat(MatrixCell.HEAP.systemProperties()).isEmpty();
    assertThat(MatrixCell.ROCKSDB_FULL.systemProperties())
        .containsEntry("state.backend.type", "rocksdb")
        .containsEntry("execution.checkpointing.incremental", "false");
  }
}

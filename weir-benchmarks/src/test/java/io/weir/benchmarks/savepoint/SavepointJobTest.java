package io.weir.benchmarks.savepoint;

import static org.assertj.core.api.Assertions.assertThat;

import io.weir.benchmarks.StateBackendSetting;
import io.weir.benchmarks.Workloads;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class SavepointJobTest {

  @Test
  void theFeedPassesOnW3sRecordsOncePerSubtaskThenDropsEveryLaterOne() {
    for (long records : new long[] {10, 11}) {
      List<Long> passed = new ArrayList<>();
      for (int subtask = 0; subtask < SavepointJob.PARALLELISM; subtask++) {
        for (long seen = 0; seen < records; seen++) {
          long i = SavepointJob.feed(subtask, seen, records);
          if (i > 0) {
            passed.add(i);
          }
        }
      }
      assertThat(passed)
          .as("1..%d, subtask 0 the lower half as fromSequence(1, N) splits it", records)
          .containsExactlyElementsOf(
              java.util.stream.LongStream.rangeClosed(1, records).boxed().toList());
    }
  }

  @Test
  void itRunsHeapAndRocksDbWithIncrementalCheckpoints() {
    assertThat(Workloads.SAVEPOINT.configs()).containsExactly("heap", "rocksdb");
    assertThat(SavepointJob.backend("rocksdb")).isEqualTo(StateBackendSetting.ROCKSDB_INCREMENTAL);
    assertThat(Workloads.SAVEPOINT.timed()).isFalse();
  }
}

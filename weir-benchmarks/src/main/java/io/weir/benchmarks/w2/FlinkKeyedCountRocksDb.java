package io.weir.benchmarks.w2;

import io.weir.benchmarks.ChildMain;
import io.weir.benchmarks.JobArgs;
import io.weir.benchmarks.Result;
import io.weir.benchmarks.StateBackendSetting;
import io.weir.benchmarks.Workloads;
import io.weir.benchmarks.w1.FlinkKeyedCount;

/**
 * W2 keyed-count-rocksdb on Flink: W1's job ({@link FlinkKeyedCount}) on the RocksDB state backend
 * with incremental checkpoints, checkpointing off or every second into a fresh local directory.
 *
 * <p>Arguments: {@code <off|cp1s> [records]}. Prints one {@link Result} line.
 */
public final class FlinkKeyedCountRocksDb {
  private FlinkKeyedCountRocksDb() {}

  public static void main(String[] args) {
    ChildMain.run(
        () -> {
          JobArgs job = JobArgs.parse(args, "W2", Workloads.OFF_AND_1S, 20_000_000L);
          FlinkKeyedCount.run("W2", job, StateBackendSetting.ROCKSDB_INCREMENTAL.flinkSettings())
              .print();
        });
  }
}

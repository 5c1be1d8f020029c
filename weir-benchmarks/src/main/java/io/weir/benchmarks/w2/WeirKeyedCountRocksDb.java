package io.weir.benchmarks.w2;

import io.weir.benchmarks.ChildMain;
import io.weir.benchmarks.JobArgs;
import io.weir.benchmarks.Result;
import io.weir.benchmarks.StateBackendSetting;
import io.weir.benchmarks.Workloads;
import io.weir.benchmarks.w1.WeirKeyedCount;

/**
 * W2 keyed-count-rocksdb on Weir: W1's job ({@link WeirKeyedCount}) on the RocksDB state backend
 * with incremental checkpoints, checkpointing off or every second into a fresh local directory.
 *
 * <p>Arguments: {@code <off|cp1s> [records]}. Prints one {@link Result} line.
 */
public final class WeirKeyedCountRocksDb {
  private WeirKeyedCountRocksDb() {}

  public static void main(String[] args) {
    ChildMain.run(
        () -> {
          JobArgs job = JobArgs.parse(args, "W2", Workloads.OFF_AND_1S, 20_000_000L);
          WeirKeyedCount.run("W2", job, StateBackendSetting.ROCKSDB_INCREMENTAL.weirSettings())
              .print();
        });
  }
}

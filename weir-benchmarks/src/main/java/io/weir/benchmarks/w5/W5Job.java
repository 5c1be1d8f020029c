package io.weir.benchmarks.w5;

import io.weir.benchmarks.Engine;
import io.weir.benchmarks.Result;
import io.weir.benchmarks.w3.W3Job;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * What the W5 recovery mains share: W3's job ({@link W3Job}) on the heap or RocksDB-incremental
 * backend (the latter also with task-local recovery: {@code rocksdb-incremental-local}), with one
 * task failure injected by the keyed function ({@link InjectedFailure}) after half the records (5
 * 000 000 of the default 10 000 000), and a fixed-delay restart strategy with no delay. The {@code
 * RESULT} carries the total job time (its {@code seconds}) and the time from the failure to the
 * first record processed after the restore; the runner sets the total against W3's failure-free run
 * of the same configuration when both ran.
 */
public final class W5Job {
  /** W3's configurations that W5 runs. */
  public static final List<String> CONFIGS =
      List.of("heap", "rocksdb-incremental", "rocksdb-incremental-local");

  private W5Job() {}

  /** Where the failure is injected: after half the records. */
  public static long failAfter(long records) {
    return records / 2;
  }

  /**
   * One restart at most (a second failure fails the job: nothing but the injected one should
   * happen), with no delay; the same keys on both engines.
   */
  public static Map<String, String> restartSettings() {
    return Map.of(
        "restart-strategy.type", "fixed-delay",
        "restart-strategy.fixed-delay.attempts", "1",
        "restart-strategy.fixed-delay.delay", "0 ms");
  }

  /**
   * The {@code RESULT}: the records over the whole job's time, the recovery time in ms ({@code n/a}
   * if no record was processed after the restore) and the records processed when the failure was
   * thrown.
   *
   * @throws IllegalStateException if the failure was never injected (too few records)
   */
  public static Result result(Engine engine, String config, long records, long nanos) {
    if (!InjectedFailure.happened()) {
      throw new IllegalStateException(
          "W5: the job ended without the injected failure, which comes after "
              + failAfter(records)
              + " records counted in steps of "
              + InjectedFailure.STEP
              + " per subtask: run it with more records.");
    }
    double recovery = InjectedFailure.recoveryMillis();
    return Result.of(engine, "W5", config, records, nanos)
        .with("recoveryMs", recovery < 0 ? "n/a" : String.format(Locale.ROOT, "%.1f", recovery))
        .with("failedAfter", Long.toString(InjectedFailure.failedAfterRecords()));
  }
}

package io.weir.api;

/**
 * How a job runs, as Flink's {@code RuntimeExecutionMode}. Weir runs jobs in streaming mode only:
 * bounded inputs are processed as streams that end (timers and windows fire at the end of input),
 * and {@code BATCH} is refused.
 */
public enum RuntimeExecutionMode {
  /** Continuous, incremental processing with checkpoints: what Weir runs. */
  STREAMING,
  /** Flink's staged execution of bounded jobs: not supported by Weir, refused when set. */
  BATCH,
  /** Flink picks BATCH when all sources are bounded; Weir always runs in STREAMING mode. */
  AUTOMATIC
}

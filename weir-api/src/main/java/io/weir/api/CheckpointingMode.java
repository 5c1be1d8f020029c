package io.weir.api;

/**
 * What a checkpoint guarantees about the records it covers, as in Flink's {@code
 * execution.checkpointing.mode}.
 */
public enum CheckpointingMode {
  /** Every record affects the restored state exactly once: barriers are aligned (or unaligned). */
  EXACTLY_ONCE,
  /** Every record affects the restored state at least once: barriers never block an input. */
  AT_LEAST_ONCE
}

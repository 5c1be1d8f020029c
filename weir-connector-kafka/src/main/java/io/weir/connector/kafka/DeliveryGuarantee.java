package io.weir.connector.kafka;

/** What a {@link KafkaSink} promises after failures: Flink's {@code DeliveryGuarantee}. */
public enum DeliveryGuarantee {
  /** Records may be lost or duplicated: nothing waits for the broker at checkpoints. */
  NONE,
  /** No record is lost; replays after a restore may duplicate some: flushes on every checkpoint. */
  AT_LEAST_ONCE,
  /**
   * Every record is visible exactly once to {@code read_committed} consumers: each subtask writes
   * into a Kafka transaction per checkpoint and commits it when the checkpoint completes.
   */
  EXACTLY_ONCE
}

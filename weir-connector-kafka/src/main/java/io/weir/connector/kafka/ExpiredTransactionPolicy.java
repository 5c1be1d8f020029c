package io.weir.connector.kafka;

/**
 * What an exactly-once {@link KafkaSink} does when Kafka refuses to commit a transaction of a
 * completed checkpoint because the broker has already aborted it (most often because it stayed open
 * longer than {@code transaction.timeout.ms}, for example while the job was down). Its records are
 * lost either way; the policy decides whether the job stops.
 */
public enum ExpiredTransactionPolicy {
  /**
   * Fail the job, without restarting (a restart would meet the same aborted transaction again),
   * with a message naming the transaction and saying its records were lost. The default.
   */
  FAIL,
  /** Log an error naming the transaction and saying its records were lost, and go on. */
  LOG_AND_CONTINUE
}

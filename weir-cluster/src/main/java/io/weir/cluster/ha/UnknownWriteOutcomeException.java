package io.weir.cluster.ha;

/**
 * A write whose outcome is unknown: the connection to ZooKeeper was lost after the write was sent
 * and did not return in time to read back whether it was applied. The write may be in ZooKeeper, so
 * nothing it refers to may be deleted (Flink's {@code PossibleInconsistentStateException}): a
 * checkpoint's files stay, and the leader that recovers the store finds its pointer if it was
 * applied.
 */
public final class UnknownWriteOutcomeException extends HighAvailabilityException {
  private static final long serialVersionUID = 1L;

  UnknownWriteOutcomeException(String message, Throwable cause) {
    super(message, cause);
  }
}

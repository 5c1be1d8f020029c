package io.weir.cluster.ha;

/**
 * ZooKeeper could not do what high availability needed: unreachable, or an operation failed. The
 * message names the quorum or the znode and what to do.
 */
public class HighAvailabilityException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  public HighAvailabilityException(String message, Throwable cause) {
    super(message, cause);
  }

  public HighAvailabilityException(String message) {
    super(message);
  }
}

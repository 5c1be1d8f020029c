package io.weir.cluster.ha;

/**
 * A new leader could not read the metadata of a checkpoint that ZooKeeper says the job retains, for
 * a reason that may pass (a timeout, a refused connection): the job is not recovered from an older
 * checkpoint instead, since its sinks may have committed the newer one's transactions. The leader
 * tries the job's recovery again.
 */
public final class CheckpointsUnreadableException extends HighAvailabilityException {
  private static final long serialVersionUID = 1L;

  public CheckpointsUnreadableException(String message, Throwable cause) {
    super(message, cause);
  }
}

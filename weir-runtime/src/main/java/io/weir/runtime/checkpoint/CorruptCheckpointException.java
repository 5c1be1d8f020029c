package io.weir.runtime.checkpoint;

import java.io.IOException;

/**
 * A task found state of a checkpoint unreadable while restoring from it (a missing file, or one
 * whose checksum does not match). The job then falls back to an older retained checkpoint instead
 * of trying the same one again.
 */
public final class CorruptCheckpointException extends IOException {

  private static final long serialVersionUID = 1L;

  private final long checkpointId;

  public CorruptCheckpointException(long checkpointId, String message, Throwable cause) {
    super(message, cause);
    this.checkpointId = checkpointId;
  }

  public long checkpointId() {
    return checkpointId;
  }

  /** The checkpoint named by the first such exception in {@code t}'s causes, or -1. */
  public static long findIn(Throwable t) {
    for (Throwable c = t; c != null; c = c.getCause()) {
      if (c instanceof CorruptCheckpointException e) {
        return e.checkpointId();
      }
    }
    return -1;
  }
}

package io.weir.runtime.checkpoint;

import java.io.IOException;

/**
 * A checkpoint cannot be restored: a state file is missing or does not match its checksum, or the
 * job's state backend cannot read its kind of state. Found before deploying (see {@link
 * io.weir.runtime.recovery.RestoreVerifier}) or by a task while restoring. The job then marks the
 * checkpoint unrestorable and falls back to an older retained checkpoint, without spending a
 * restart attempt, instead of trying the same one again.
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

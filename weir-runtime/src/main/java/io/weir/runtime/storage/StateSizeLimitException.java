package io.weir.runtime.storage;

import io.weir.runtime.recovery.NonRecoverable;
import java.io.IOException;

/**
 * A state is larger than the checkpoint storage keeps (JobManager storage's per-state limit). The
 * same state grows again after a restart, so the job fails instead of restarting forever.
 */
public final class StateSizeLimitException extends IOException implements NonRecoverable {

  private static final long serialVersionUID = 1L;

  public StateSizeLimitException(String message) {
    super(message);
  }
}

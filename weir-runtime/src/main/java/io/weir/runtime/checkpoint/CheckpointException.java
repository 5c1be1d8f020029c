package io.weir.runtime.checkpoint;

/** A checkpoint could not be taken, or too many failed in a row. */
public final class CheckpointException extends Exception {
  private static final long serialVersionUID = 1L;

  private final boolean refused;

  public CheckpointException(String message) {
    this(message, null);
  }

  public CheckpointException(String message, Throwable cause) {
    this(message, cause, false);
  }

  private CheckpointException(String message, Throwable cause, boolean refused) {
    super(message, cause);
    this.refused = refused;
  }

  /** A checkpoint or savepoint refused before it was triggered: no task heard of it. */
  public static CheckpointException refused(String message) {
    return new CheckpointException(message, null, true);
  }

  /** True when no task heard of the checkpoint: it was refused before it was triggered. */
  public boolean isRefused() {
    return refused;
  }
}

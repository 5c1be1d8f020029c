package io.weir.runtime.checkpoint;

/** A checkpoint could not be taken, or too many failed in a row. */
public final class CheckpointException extends Exception {
  private static final long serialVersionUID = 1L;

  public CheckpointException(String message) {
    super(message);
  }

  public CheckpointException(String message, Throwable cause) {
    super(message, cause);
  }
}

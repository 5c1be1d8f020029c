package io.weir.runtime.recovery;

/**
 * A failure that no restart can mend (see {@link NonRecoverable}); its message names the thing at
 * fault and what to change.
 */
public class NonRecoverableException extends RuntimeException implements NonRecoverable {

  private static final long serialVersionUID = 1L;

  public NonRecoverableException(String message) {
    super(message);
  }

  public NonRecoverableException(String message, Throwable cause) {
    super(message, cause);
  }
}

package io.weir.api;

/**
 * A failure that restarting cannot cure: the job fails at once, whatever its restart strategy says,
 * as Flink's exception of the same name. Thrown (or found as a cause) by user code or a connector
 * that knows a restart would only repeat the failure, for example a sink that finds on restore that
 * a transaction it must commit was aborted by the broker.
 */
public class SuppressRestartsException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  public SuppressRestartsException(String message, Throwable cause) {
    super(message, cause);
  }

  /** True if {@code failure} or one of its causes is a {@link SuppressRestartsException}. */
  public static boolean isIn(Throwable failure) {
    for (Throwable t = failure; t != null; t = t.getCause()) {
      if (t instanceof SuppressRestartsException) {
        return true;
      }
      if (t.getCause() == t) {
        break;
      }
    }
    return false;
  }
}

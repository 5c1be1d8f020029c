package io.weir.cli;

/**
 * A command failed for a reason its message says in full, in the user's terms (the file they gave,
 * the job); its cause holds the internals (the REST call, the JobManager's own words), which only
 * {@code --verbose} prints.
 */
final class CommandFailure extends RuntimeException {
  private static final long serialVersionUID = 1L;

  CommandFailure(String message, Throwable internals) {
    super(message, internals);
  }

  CommandFailure(String message) {
    super(message);
  }
}

package io.weir.runtime.testing;

import java.util.List;

/**
 * Thrown by {@code verify()} when a run of the script did not give the expected output: the message
 * names the operator, the run (where the snapshot + restore or the crash was injected), the first
 * difference, and the other runs that failed too.
 */
public final class HarnessVerificationError extends AssertionError {
  private static final long serialVersionUID = 1L;

  private final String failedRun;
  private final List<String> otherFailedRuns;

  HarnessVerificationError(
      String message, String failedRun, List<String> otherFailedRuns, Throwable cause) {
    super(message, cause);
    this.failedRun = failedRun;
    this.otherFailedRuns = List.copyOf(otherFailedRuns);
  }

  /**
   * The first run that failed, e.g. "a snapshot + restore ... was injected before step 3 (...)".
   */
  public String failedRun() {
    return failedRun;
  }

  /** The other runs that failed, in the order they ran. */
  public List<String> otherFailedRuns() {
    return otherFailedRuns;
  }
}

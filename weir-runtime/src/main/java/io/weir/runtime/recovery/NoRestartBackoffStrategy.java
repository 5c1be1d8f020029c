package io.weir.runtime.recovery;

/** Never restarts: the first failure fails the job. */
final class NoRestartBackoffStrategy implements RestartBackoffStrategy {

  @Override
  public void notifyFailure(long nowMillis) {}

  @Override
  public boolean canRestart() {
    return false;
  }

  @Override
  public long getBackoffMillis() {
    return 0;
  }

  @Override
  public String describe() {
    return "none (a failure fails the job; set restart-strategy.type to fixed-delay,"
        + " exponential-delay or failure-rate to restart, or enable checkpointing to get"
        + " exponential-delay by default)";
  }

  @Override
  public String toString() {
    return describe();
  }
}

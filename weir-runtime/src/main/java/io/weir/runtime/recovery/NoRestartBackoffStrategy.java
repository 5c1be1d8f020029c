package io.weir.runtime.recovery;

/** Never restarts: the first failure fails the job. */
final class NoRestartBackoffStrategy implements RestartBackoffStrategy {

  /** True when {@code restart-strategy.type: none} was set, not taken as the default. */
  private final boolean explicit;

  NoRestartBackoffStrategy(boolean explicit) {
    this.explicit = explicit;
  }

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
    if (explicit) {
      return "none (restart-strategy.type: none)";
    }
    return "none (a failure fails the job; set restart-strategy.type to fixed-delay,"
        + " exponential-delay or failure-rate to restart, or enable checkpointing to get"
        + " exponential-delay by default)";
  }

  @Override
  public String toString() {
    return describe();
  }
}

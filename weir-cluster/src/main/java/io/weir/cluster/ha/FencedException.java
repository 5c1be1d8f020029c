package io.weir.cluster.ha;

/**
 * A write refused because its leader was deposed: a newer leader's epoch took over (Flink's
 * fencing). Nothing of the write was applied. The deposed leader must stop acting for the cluster,
 * and must not delete the files of what it tried to record either: the new leader owns them now.
 */
public final class FencedException extends HighAvailabilityException {
  private static final long serialVersionUID = 1L;

  private final long epoch;
  private final long currentEpoch;

  FencedException(String what, long epoch, long currentEpoch) {
    super(
        what
            + " was refused: it was written by the leader of epoch "
            + epoch
            + ", but the leader of epoch "
            + currentEpoch
            + " has taken over. This JobManager was deposed: it must stop acting for the cluster"
            + " and delete no file the write referred to.");
    this.epoch = epoch;
    this.currentEpoch = currentEpoch;
  }

  /** The epoch of the deposed leader that tried the write. */
  public long epoch() {
    return epoch;
  }

  /** The epoch that has taken over, as ZooKeeper held it when the write was refused. */
  public long currentEpoch() {
    return currentEpoch;
  }
}

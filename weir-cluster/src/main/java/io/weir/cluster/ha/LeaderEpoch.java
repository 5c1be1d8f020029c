package io.weir.cluster.ha;

/**
 * The epoch of one leadership, strictly increasing across leaders (the version of the epoch znode,
 * which every grant of leadership bumps). Every write of the leader's stores is conditional on it:
 * once a newer leader has bumped the epoch, the writes of this one are refused ({@link
 * FencedException}).
 *
 * @param value the epoch, at least 1
 */
public record LeaderEpoch(long value) {

  public LeaderEpoch {
    if (value < 1) {
      throw new IllegalArgumentException("An epoch is at least 1, not " + value);
    }
  }

  @Override
  public String toString() {
    return "epoch " + value;
  }
}

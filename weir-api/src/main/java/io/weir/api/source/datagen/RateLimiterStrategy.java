package io.weir.api.source.datagen;

import java.io.Serializable;

/**
 * How fast a {@link DataGeneratorSource} emits, as Flink's {@code RateLimiterStrategy}: {@link
 * #perSecond} for a rate over all subtasks, {@link #noOp} for as fast as the job takes the records.
 */
public final class RateLimiterStrategy implements Serializable {
  private static final long serialVersionUID = 1L;

  private static final RateLimiterStrategy NO_OP = new RateLimiterStrategy(0);

  /** Records per second over all subtasks; 0 for no limit. */
  private final double recordsPerSecond;

  private RateLimiterStrategy(double recordsPerSecond) {
    this.recordsPerSecond = recordsPerSecond;
  }

  /**
   * {@code recordsPerSecond} over all subtasks of the source, each subtask taking its share (as in
   * Flink).
   */
  public static RateLimiterStrategy perSecond(double recordsPerSecond) {
    if (!(recordsPerSecond > 0) || Double.isInfinite(recordsPerSecond)) {
      throw new IllegalArgumentException(
          "RateLimiterStrategy.perSecond takes a positive, finite number of records per second,"
              + " not "
              + recordsPerSecond);
    }
    return new RateLimiterStrategy(recordsPerSecond);
  }

  /** No limit: the records come as fast as the job takes them. */
  public static RateLimiterStrategy noOp() {
    return NO_OP;
  }

  /** Nanoseconds between two records of one of {@code parallelism} subtasks; 0: no limit. */
  double nanosPerRecord(int parallelism) {
    return recordsPerSecond == 0 ? 0 : 1e9 * parallelism / recordsPerSecond;
  }
}

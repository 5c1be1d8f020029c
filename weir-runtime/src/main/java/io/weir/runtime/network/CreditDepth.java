package io.weir.runtime.network;

import io.weir.api.config.Configuration;
import io.weir.api.config.CoreOptions;
import java.time.Duration;

/**
 * How many credits a consumer grants each of its channels: at least {@code min}, the channel's
 * start; at most {@code max}; in between, as many buffers as the consumer took from the channel in
 * {@code targetNanos} over the last {@link #PERIOD_NANOS}. A fast channel so gets the depth to ride
 * out a few milliseconds in which its consumer or producer is descheduled, where a fixed depth
 * starves the consumer (and with it every other consumer of the same producer, which waits as soon
 * as one channel has no credit); a slow or back-pressured channel keeps {@code min}, so an aligned
 * barrier waits behind no more data, and an unaligned one records no more, than with a fixed depth.
 * The in-flight data of a gate is bounded by its throughput times the target, not by its number of
 * channels times {@code max}.
 *
 * <p>A depth grows to its target at once and shrinks at most by half a period, so that a consumer
 * paused for a checkpoint's synchronous part or a collection does not lose a fast channel's depth.
 */
public record CreditDepth(int min, int max, long targetNanos) {

  /** How long a consumer counts the buffers it takes before it sets its channels' depths again. */
  public static final long PERIOD_NANOS = 100_000_000L;

  public CreditDepth {
    if (min < 1) {
      throw new IllegalArgumentException(
          CoreOptions.BUFFERS_PER_CHANNEL.key() + " must be at least 1, but was " + min);
    }
    if (max < min) {
      throw new IllegalArgumentException(
          CoreOptions.MAX_BUFFERS_PER_CHANNEL.key()
              + " must be at least "
              + CoreOptions.BUFFERS_PER_CHANNEL.key()
              + " ("
              + min
              + "), but was "
              + max
              + "; set it to "
              + min
              + " for a fixed number of credits per channel");
    }
    if (targetNanos < 0) {
      throw new IllegalArgumentException(
          CoreOptions.IN_FLIGHT_TARGET.key() + " must not be negative, but was " + targetNanos);
    }
  }

  /**
   * How many credits a remote consumer lets become due before it announces them at once rather than
   * with its event loop's next wake-up, for a channel of {@code depth}: half of it. The producer's
   * end counts on the same number when it hands buffers to its event loop without waking it.
   */
  public static int announceAt(int depth) {
    return Math.max(1, depth / 2);
  }

  /** Every channel keeps {@code credits}: no measuring, no change. */
  public static CreditDepth fixed(int credits) {
    return new CreditDepth(credits, credits, 0);
  }

  /** The depth a job's configuration asks for; a clear error for keys with impossible values. */
  public static CreditDepth of(Configuration conf) {
    Duration target = conf.get(CoreOptions.IN_FLIGHT_TARGET);
    if (target.isNegative()) {
      throw new IllegalArgumentException(
          CoreOptions.IN_FLIGHT_TARGET.key()
              + " must not be negative, but was "
              + target
              + "; 0 keeps every channel at "
              + CoreOptions.BUFFERS_PER_CHANNEL.key());
    }
    return new CreditDepth(
        conf.get(CoreOptions.BUFFERS_PER_CHANNEL),
        conf.get(CoreOptions.MAX_BUFFERS_PER_CHANNEL),
        target.toNanos());
  }

  /** Whether depths change at all. */
  public boolean adaptive() {
    return max > min && targetNanos > 0;
  }

  /**
   * The depth for the next period of a channel that has {@code depth} and took {@code consumed}
   * buffers in the {@code elapsedNanos} since the last.
   */
  public int next(int depth, int consumed, long elapsedNanos) {
    double wanted = Math.ceil((double) consumed * targetNanos / Math.max(1, elapsedNanos));
    int target = (int) Math.max(min, Math.min(max, wanted));
    return target >= depth ? target : Math.max(target, depth / 2);
  }
}

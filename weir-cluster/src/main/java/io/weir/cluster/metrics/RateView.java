package io.weir.cluster.metrics;

/**
 * The rate per second of a growing count over a sliding window of samples (Flink's {@code
 * MeterView}): a sampler thread calls {@link #update} at a fixed interval; any thread reads {@link
 * #rate}. Until a second sample, the rate is 0.
 */
final class RateView {

  private final long[] counts;
  private final long[] times;
  private int newest = -1;
  private int samples;
  private volatile double rate;
  private volatile boolean measured;

  /** A window of {@code intervals} sampling intervals. */
  RateView(int intervals) {
    if (intervals < 1) {
      throw new IllegalArgumentException("A rate needs at least one interval, not " + intervals);
    }
    counts = new long[intervals + 1];
    times = new long[intervals + 1];
  }

  /** Takes a sample: {@code count} at {@code nanos} ({@link System#nanoTime()}); sampler only. */
  void update(long count, long nanos) {
    newest = (newest + 1) % counts.length;
    counts[newest] = count;
    times[newest] = nanos;
    samples = Math.min(samples + 1, counts.length);
    if (samples < 2) {
      return;
    }
    int oldest = samples < counts.length ? 0 : (newest + 1) % counts.length;
    long elapsed = times[newest] - times[oldest];
    rate = elapsed <= 0 ? 0 : (counts[newest] - counts[oldest]) * 1e9 / elapsed;
    measured = true;
  }

  /** Whether a rate was measured: two samples were taken. */
  boolean measured() {
    return measured;
  }

  /** The count's growth per second over the window. */
  double rate() {
    return rate;
  }
}

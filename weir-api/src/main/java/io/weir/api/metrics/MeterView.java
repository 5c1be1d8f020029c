package io.weir.api.metrics;

/**
 * A {@link Meter} over a {@link Counter}, as Flink's {@code MeterView}: its rate is the events of
 * the last {@code timeSpanInSeconds} (rounded to the update interval of 5 s, at least one interval)
 * per second, updated every 5 s while the TaskManager reports metrics.
 */
public class MeterView implements Meter, View {

  private static final int DEFAULT_TIME_SPAN_IN_SECONDS = 60;

  private final Counter counter;

  /** The counts at the last updates, oldest first in ring order from {@link #time}. */
  private final long[] values;

  private int time;
  private volatile double rate;

  /** A meter over a new {@link SimpleCounter}, with a rate over {@code timeSpanInSeconds}. */
  public MeterView(int timeSpanInSeconds) {
    this(new SimpleCounter(), timeSpanInSeconds);
  }

  /** A meter over {@code counter}, with a rate over the last minute. */
  public MeterView(Counter counter) {
    this(counter, DEFAULT_TIME_SPAN_IN_SECONDS);
  }

  /** A meter over {@code counter}, with a rate over {@code timeSpanInSeconds}. */
  public MeterView(Counter counter, int timeSpanInSeconds) {
    if (counter == null) {
      throw new IllegalArgumentException("MeterView: the counter must not be null");
    }
    this.counter = counter;
    int intervals = Math.max(1, timeSpanInSeconds / UPDATE_INTERVAL_SECONDS);
    this.values = new long[intervals + 1];
  }

  @Override
  public void markEvent() {
    counter.inc();
  }

  @Override
  public void markEvent(long n) {
    counter.inc(n);
  }

  @Override
  public long getCount() {
    return counter.getCount();
  }

  @Override
  public double getRate() {
    return rate;
  }

  @Override
  public synchronized void update() {
    time = (time + 1) % values.length;
    values[time] = counter.getCount();
    long oldest = values[(time + 1) % values.length];
    rate = (double) (values[time] - oldest) / ((values.length - 1) * UPDATE_INTERVAL_SECONDS);
  }
}

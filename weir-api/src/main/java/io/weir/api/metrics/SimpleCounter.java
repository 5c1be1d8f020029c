package io.weir.api.metrics;

/**
 * A {@link Counter} for one thread, as Flink's {@code SimpleCounter}: the function's thread counts,
 * a reporter reads a recent value from another.
 */
public class SimpleCounter implements Counter {

  private long count;

  @Override
  public void inc() {
    count++;
  }

  @Override
  public void inc(long n) {
    count += n;
  }

  @Override
  public void dec() {
    count--;
  }

  @Override
  public void dec(long n) {
    count -= n;
  }

  @Override
  public long getCount() {
    return count;
  }
}

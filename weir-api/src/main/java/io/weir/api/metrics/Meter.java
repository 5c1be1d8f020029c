package io.weir.api.metrics;

/** Events per second, as Flink's {@code Meter}. */
public interface Meter extends Metric {

  /** One event happened. */
  void markEvent();

  /** {@code n} events happened. */
  void markEvent(long n);

  /** Events per second, over the meter's time span. */
  double getRate();

  /** Events marked in all. */
  long getCount();
}

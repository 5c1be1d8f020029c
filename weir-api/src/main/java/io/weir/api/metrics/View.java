package io.weir.api.metrics;

/**
 * A metric the reporter updates every {@link #UPDATE_INTERVAL_SECONDS} seconds, as Flink's {@code
 * View}: what {@link MeterView} computes its rate in.
 */
public interface View {

  /** How often {@link #update()} is called, in seconds. */
  int UPDATE_INTERVAL_SECONDS = 5;

  /** Takes the metric's figures for the interval that ended; the reporter's thread. */
  void update();
}

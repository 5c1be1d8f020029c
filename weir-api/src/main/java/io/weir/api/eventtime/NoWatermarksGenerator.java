package io.weir.api.eventtime;

/** Emits no watermarks: event time does not move on (processing-time jobs). */
public final class NoWatermarksGenerator<T> implements WatermarkGenerator<T> {

  @Override
  public void onEvent(T event, long eventTimestamp, WatermarkOutput output) {}

  @Override
  public void onPeriodicEmit(WatermarkOutput output) {}
}

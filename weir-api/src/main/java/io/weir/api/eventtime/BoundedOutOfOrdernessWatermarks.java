package io.weir.api.eventtime;

import java.time.Duration;
import java.util.Objects;

/**
 * Watermarks for records at most a fixed time out of order: the watermark trails the highest
 * timestamp seen by the bound (minus one millisecond, as in Flink), and is emitted periodically.
 */
public class BoundedOutOfOrdernessWatermarks<T> implements WatermarkGenerator<T> {

  private final long outOfOrdernessMillis;
  private long maxTimestamp;

  public BoundedOutOfOrdernessWatermarks(Duration maxOutOfOrderness) {
    Objects.requireNonNull(maxOutOfOrderness, "maxOutOfOrderness");
    if (maxOutOfOrderness.isNegative()) {
      throw new IllegalArgumentException(
          "forBoundedOutOfOrderness: the bound must not be negative, but was " + maxOutOfOrderness);
    }
    this.outOfOrdernessMillis = maxOutOfOrderness.toMillis();
    // Start so that the first watermark does not underflow.
    this.maxTimestamp = Long.MIN_VALUE + outOfOrdernessMillis + 1;
  }

  @Override
  public void onEvent(T event, long eventTimestamp, WatermarkOutput output) {
    maxTimestamp = Math.max(maxTimestamp, eventTimestamp);
  }

  @Override
  public void onPeriodicEmit(WatermarkOutput output) {
    output.emitWatermark(new Watermark(maxTimestamp - outOfOrdernessMillis - 1));
  }
}

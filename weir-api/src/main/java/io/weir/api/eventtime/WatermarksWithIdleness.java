package io.weir.api.eventtime;

import java.time.Duration;
import java.util.Objects;
import java.util.function.LongSupplier;

/**
 * Marks its output idle when no record arrived for the idle timeout (checked at each periodic
 * emit), so that downstream event time moves on without it; the next record makes it active again.
 */
public final class WatermarksWithIdleness<T> implements WatermarkGenerator<T> {

  private final WatermarkGenerator<T> watermarks;
  private final long idleTimeoutNanos;
  private final LongSupplier nanoClock;
  private long lastActivity;
  private boolean idle;

  public WatermarksWithIdleness(WatermarkGenerator<T> watermarks, Duration idleTimeout) {
    this(watermarks, idleTimeout, System::nanoTime);
  }

  /** With a clock of its own (nanoseconds), for tests. */
  public WatermarksWithIdleness(
      WatermarkGenerator<T> watermarks, Duration idleTimeout, LongSupplier nanoClock) {
    this.watermarks = Objects.requireNonNull(watermarks, "watermarks");
    if (idleTimeout == null || idleTimeout.isNegative() || idleTimeout.isZero()) {
      throw new IllegalArgumentException(
          "withIdleness: the idle timeout must be positive, but was " + idleTimeout);
    }
    this.idleTimeoutNanos = idleTimeout.toNanos();
    this.nanoClock = nanoClock;
    this.lastActivity = nanoClock.getAsLong();
  }

  @Override
  public void onEvent(T event, long eventTimestamp, WatermarkOutput output) {
    watermarks.onEvent(event, eventTimestamp, output);
    lastActivity = nanoClock.getAsLong();
    if (idle) {
      idle = false;
      output.markActive();
    }
  }

  @Override
  public void onPeriodicEmit(WatermarkOutput output) {
    if (idle) {
      return;
    }
    if (nanoClock.getAsLong() - lastActivity >= idleTimeoutNanos) {
      idle = true;
      output.markIdle();
    } else {
      watermarks.onPeriodicEmit(output);
    }
  }
}

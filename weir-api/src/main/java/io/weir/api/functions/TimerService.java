package io.weir.api.functions;

/**
 * Timers of a keyed function, scoped to the current key. A timer fires once per key and timestamp,
 * on the task thread, calling {@code onTimer}. Event-time timers fire when the watermark passes
 * them; at the end of bounded input every pending event-time timer fires.
 */
public interface TimerService {

  long currentProcessingTime();

  long currentWatermark();

  void registerProcessingTimeTimer(long time);

  void registerEventTimeTimer(long time);

  void deleteProcessingTimeTimer(long time);

  void deleteEventTimeTimer(long time);
}

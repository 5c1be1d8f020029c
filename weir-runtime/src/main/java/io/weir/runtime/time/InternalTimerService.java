package io.weir.runtime.time;

import io.weir.api.functions.TimerService;
import io.weir.runtime.state.KeyedStateBackend;
import io.weir.runtime.state.TimerQueue;

/**
 * Timers of one keyed operator: at most one timer per key, timestamp and time domain. Fires
 * processing-time timers through the {@link ProcessingTimeService}, event-time timers when the
 * watermark advances. Task thread only.
 */
public final class InternalTimerService<K> implements TimerService {

  /** What to run when a timer fires; the current key is already set. */
  public interface Triggerable<K> {
    void onEventTime(K key, long timestamp) throws Exception;

    void onProcessingTime(K key, long timestamp) throws Exception;
  }

  private final KeyedStateBackend<K> backend;
  private final ProcessingTimeService timeService;
  private final Triggerable<K> target;

  /** The timers live in the keyed backend, so they are checkpointed with the rest. */
  private final TimerQueue<K> processingTimers;

  private final TimerQueue<K> eventTimers;
  private ProcessingTimeService.Cancellable nextPhysical;
  private long nextPhysicalTime = Long.MAX_VALUE;
  private long currentWatermark = Long.MIN_VALUE;

  public InternalTimerService(
      KeyedStateBackend<K> backend, ProcessingTimeService timeService, Triggerable<K> target) {
    this.backend = backend;
    this.timeService = timeService;
    this.target = target;
    this.processingTimers = backend.getTimerQueue(PROCESSING_TIMERS);
    this.eventTimers = backend.getTimerQueue(EVENT_TIMERS);
    long first = processingTimers.peekTimestamp();
    if (first != Long.MAX_VALUE) {
      schedule(first);
    }
  }

  /** Names of the hidden keyed states that hold the timers. */
  public static final String PROCESSING_TIMERS = "_timers_processing";

  public static final String EVENT_TIMERS = "_timers_event";

  @Override
  public long currentProcessingTime() {
    return timeService.getCurrentProcessingTime();
  }

  @Override
  public long currentWatermark() {
    return currentWatermark;
  }

  @Override
  public void registerProcessingTimeTimer(long time) {
    if (processingTimers.add(time, backend.getCurrentKey()) && time < nextPhysicalTime) {
      schedule(time);
    }
  }

  @Override
  public void registerEventTimeTimer(long time) {
    eventTimers.add(time, backend.getCurrentKey());
  }

  @Override
  public void deleteProcessingTimeTimer(long time) {
    processingTimers.remove(time, backend.getCurrentKey());
  }

  @Override
  public void deleteEventTimeTimer(long time) {
    eventTimers.remove(time, backend.getCurrentKey());
  }

  private void schedule(long time) {
    if (nextPhysical != null) {
      nextPhysical.cancel();
    }
    nextPhysicalTime = time;
    nextPhysical = timeService.registerTimer(time, this::onProcessingTime);
  }

  private void onProcessingTime(long now) throws Exception {
    nextPhysical = null;
    nextPhysicalTime = Long.MAX_VALUE;
    TimerQueue.Timer<K> timer;
    while (processingTimers.peekTimestamp() <= now && (timer = processingTimers.poll()) != null) {
      backend.setCurrentKey(timer.key());
      target.onProcessingTime(timer.key(), timer.timestamp());
    }
    long next = processingTimers.peekTimestamp();
    if (next != Long.MAX_VALUE) {
      schedule(next);
    }
  }

  /** Fires the event-time timers up to {@code watermark}. */
  public void advanceWatermark(long watermark) throws Exception {
    currentWatermark = watermark;
    TimerQueue.Timer<K> timer;
    while (eventTimers.peekTimestamp() <= watermark && (timer = eventTimers.poll()) != null) {
      backend.setCurrentKey(timer.key());
      target.onEventTime(timer.key(), timer.timestamp());
    }
  }

  /** Stops the physical processing-time callback; timers stay registered. */
  public void close() {
    if (nextPhysical != null) {
      nextPhysical.cancel();
      nextPhysical = null;
    }
  }
}

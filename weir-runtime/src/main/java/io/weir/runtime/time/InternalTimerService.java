package io.weir.runtime.time;

import io.weir.api.functions.TimerService;
import io.weir.runtime.state.HeapKeyedStateBackend;
import java.util.Comparator;
import java.util.HashSet;
import java.util.PriorityQueue;
import java.util.Set;

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

  private record Timer<K>(long timestamp, K key) {}

  private static final Comparator<Timer<?>> ORDER = Comparator.comparingLong(Timer::timestamp);

  private final HeapKeyedStateBackend<K> backend;
  private final ProcessingTimeService timeService;
  private final Triggerable<K> target;
  private final PriorityQueue<Timer<K>> processingTimers = new PriorityQueue<>(ORDER);
  private final Set<Timer<K>> processingSet = new HashSet<>();
  private final PriorityQueue<Timer<K>> eventTimers = new PriorityQueue<>(ORDER);
  private final Set<Timer<K>> eventSet = new HashSet<>();
  private ProcessingTimeService.Cancellable nextPhysical;
  private long nextPhysicalTime = Long.MAX_VALUE;
  private long currentWatermark = Long.MIN_VALUE;

  public InternalTimerService(
      HeapKeyedStateBackend<K> backend, ProcessingTimeService timeService, Triggerable<K> target) {
    this.backend = backend;
    this.timeService = timeService;
    this.target = target;
  }

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
    Timer<K> timer = new Timer<>(time, backend.getCurrentKey());
    if (processingSet.add(timer)) {
      processingTimers.add(timer);
      if (time < nextPhysicalTime) {
        schedule(time);
      }
    }
  }

  @Override
  public void registerEventTimeTimer(long time) {
    Timer<K> timer = new Timer<>(time, backend.getCurrentKey());
    if (eventSet.add(timer)) {
      eventTimers.add(timer);
    }
  }

  @Override
  public void deleteProcessingTimeTimer(long time) {
    Timer<K> timer = new Timer<>(time, backend.getCurrentKey());
    if (processingSet.remove(timer)) {
      processingTimers.remove(timer);
    }
  }

  @Override
  public void deleteEventTimeTimer(long time) {
    Timer<K> timer = new Timer<>(time, backend.getCurrentKey());
    if (eventSet.remove(timer)) {
      eventTimers.remove(timer);
    }
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
    Timer<K> timer;
    while ((timer = processingTimers.peek()) != null && timer.timestamp() <= now) {
      processingTimers.poll();
      processingSet.remove(timer);
      backend.setCurrentKey(timer.key());
      target.onProcessingTime(timer.key(), timer.timestamp());
    }
    if (timer != null) {
      schedule(timer.timestamp());
    }
  }

  /** Fires the event-time timers up to {@code watermark}. */
  public void advanceWatermark(long watermark) throws Exception {
    currentWatermark = watermark;
    Timer<K> timer;
    while ((timer = eventTimers.peek()) != null && timer.timestamp() <= watermark) {
      eventTimers.poll();
      eventSet.remove(timer);
      backend.setCurrentKey(timer.key());
      target.onEventTime(timer.key(), timer.timestamp());
    }
  }

  public int numberOfTimers() {
    return processingTimers.size() + eventTimers.size();
  }

  /** Stops the physical processing-time callback; timers stay registered. */
  public void close() {
    if (nextPhysical != null) {
      nextPhysical.cancel();
      nextPhysical = null;
    }
  }
}

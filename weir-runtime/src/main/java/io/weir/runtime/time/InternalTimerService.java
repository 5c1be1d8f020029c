package io.weir.runtime.time;

import io.weir.api.functions.TimerService;
import io.weir.api.state.MapState;
import io.weir.api.state.MapStateDescriptor;
import io.weir.api.typeutils.Types;
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

  /** The timers as keyed state, so they are checkpointed (copy-on-write) with the rest. */
  private final MapState<Long, Boolean> processingState;

  private final MapState<Long, Boolean> eventState;
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
    this.processingState =
        backend.getMapState(new MapStateDescriptor<>(PROCESSING_TIMERS, Types.LONG, Types.BOOLEAN));
    this.eventState =
        backend.getMapState(new MapStateDescriptor<>(EVENT_TIMERS, Types.LONG, Types.BOOLEAN));
    rebuild(PROCESSING_TIMERS, processingTimers, processingSet);
    rebuild(EVENT_TIMERS, eventTimers, eventSet);
    Timer<K> first = processingTimers.peek();
    if (first != null) {
      schedule(first.timestamp());
    }
  }

  /** Names of the hidden keyed states that hold the timers. */
  static final String PROCESSING_TIMERS = "_timers_processing";

  static final String EVENT_TIMERS = "_timers_event";

  /** Rebuilds the in-memory index of restored timers. */
  @SuppressWarnings("unchecked")
  private void rebuild(String state, PriorityQueue<Timer<K>> queue, Set<Timer<K>> set) {
    backend.forEachEntry(
        state,
        (key, value) -> {
          for (Long timestamp : ((java.util.Map<Long, Boolean>) value).keySet()) {
            Timer<K> timer = new Timer<>(timestamp, key);
            if (set.add(timer)) {
              queue.add(timer);
            }
          }
        });
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
      putState(processingState, time);
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
      putState(eventState, time);
    }
  }

  @Override
  public void deleteProcessingTimeTimer(long time) {
    Timer<K> timer = new Timer<>(time, backend.getCurrentKey());
    if (processingSet.remove(timer)) {
      processingTimers.remove(timer);
      removeState(processingState, time);
    }
  }

  @Override
  public void deleteEventTimeTimer(long time) {
    Timer<K> timer = new Timer<>(time, backend.getCurrentKey());
    if (eventSet.remove(timer)) {
      eventTimers.remove(timer);
      removeState(eventState, time);
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
      removeState(processingState, timer.timestamp());
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
      removeState(eventState, timer.timestamp());
      target.onEventTime(timer.key(), timer.timestamp());
    }
  }

  private static void putState(MapState<Long, Boolean> state, long time) {
    try {
      state.put(time, Boolean.TRUE);
    } catch (Exception e) {
      throw new IllegalStateException("Cannot record timer " + time, e);
    }
  }

  private static void removeState(MapState<Long, Boolean> state, long time) {
    try {
      state.remove(time);
    } catch (Exception e) {
      throw new IllegalStateException("Cannot remove timer " + time, e);
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

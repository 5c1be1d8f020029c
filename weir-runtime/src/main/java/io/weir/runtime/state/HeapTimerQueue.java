package io.weir.runtime.state;

import io.weir.api.state.MapState;
import io.weir.api.state.MapStateDescriptor;
import io.weir.api.typeutils.Types;
import java.util.Comparator;
import java.util.HashSet;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.Set;

/**
 * Timers of the heap backend: a priority queue and a set on the heap, mirrored into a hidden keyed
 * map state (key → timestamps) so that the copy-on-write snapshot of the backend includes them.
 * Adds and removes use the backend's current key, which the timer service sets to {@code key}.
 */
final class HeapTimerQueue<K> implements TimerQueue<K> {

  private static final Comparator<Timer<?>> ORDER = Comparator.comparingLong(Timer::timestamp);

  private final KeyedStateBackend<K> backend;
  private final MapState<Long, Boolean> state;
  private final PriorityQueue<Timer<K>> queue = new PriorityQueue<>(ORDER);
  private final Set<Timer<K>> set = new HashSet<>();

  @SuppressWarnings("unchecked")
  HeapTimerQueue(HeapKeyedStateBackend<K> backend, String name) {
    this.backend = backend;
    this.state = backend.getMapState(new MapStateDescriptor<>(name, Types.LONG, Types.BOOLEAN));
    backend.forEachEntry(
        name,
        (key, value) -> {
          for (Long timestamp : ((Map<Long, Boolean>) value).keySet()) {
            Timer<K> timer = new Timer<>(timestamp, key);
            if (set.add(timer)) {
              queue.add(timer);
            }
          }
        });
  }

  @Override
  public boolean add(long timestamp, K key) {
    Timer<K> timer = new Timer<>(timestamp, key);
    if (!set.add(timer)) {
      return false;
    }
    queue.add(timer);
    try {
      state.put(timestamp, Boolean.TRUE);
    } catch (Exception e) {
      throw new IllegalStateException("Cannot record timer " + timestamp, e);
    }
    return true;
  }

  @Override
  public boolean remove(long timestamp, K key) {
    Timer<K> timer = new Timer<>(timestamp, key);
    if (!set.remove(timer)) {
      return false;
    }
    queue.remove(timer);
    removeState(timestamp);
    return true;
  }

  @Override
  public long peekTimestamp() {
    Timer<K> head = queue.peek();
    return head == null ? Long.MAX_VALUE : head.timestamp();
  }

  @Override
  public Timer<K> poll() {
    Timer<K> timer = queue.poll();
    if (timer != null) {
      set.remove(timer);
      backend.setCurrentKey(timer.key());
      removeState(timer.timestamp());
    }
    return timer;
  }

  private void removeState(long timestamp) {
    try {
      state.remove(timestamp);
    } catch (Exception e) {
      throw new IllegalStateException("Cannot remove timer " + timestamp, e);
    }
  }
}

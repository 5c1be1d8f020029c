package io.weir.runtime.state;

/**
 * The timers of one time domain of a keyed operator: at most one per key and timestamp, polled in
 * timestamp order. Lives in the keyed state backend so that it is part of every checkpoint. Task
 * thread only.
 *
 * @param <K> the key type
 */
public interface TimerQueue<K> {

  /**
   * One timer. Its {@code equals} and {@code hashCode} are written out: a record's generated ones
   * go through method handles, which showed in profiles of timer-heavy jobs (heap queues hash every
   * timer); they mean the same.
   */
  record Timer<K>(long timestamp, K key) {
    @Override
    public boolean equals(Object o) {
      return o instanceof Timer<?> other
          && timestamp == other.timestamp
          && java.util.Objects.equals(key, other.key);
    }

    @Override
    public int hashCode() {
      return 31 * Long.hashCode(timestamp) + java.util.Objects.hashCode(key);
    }
  }

  /** Adds a timer; false if it was there already. */
  boolean add(long timestamp, K key);

  /** Removes a timer; false if there was none. */
  boolean remove(long timestamp, K key);

  /** The earliest timestamp, or {@link Long#MAX_VALUE} when empty. */
  long peekTimestamp();

  /** Removes and returns the earliest timer, or null when empty. */
  Timer<K> poll();
}

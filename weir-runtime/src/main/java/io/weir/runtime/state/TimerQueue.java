package io.weir.runtime.state;

/**
 * The timers of one time domain of a keyed operator: at most one per key and timestamp, polled in
 * timestamp order. Lives in the keyed state backend so that it is part of every checkpoint. Task
 * thread only.
 *
 * @param <K> the key type
 */
public interface TimerQueue<K> {

  /** One timer. */
  record Timer<K>(long timestamp, K key) {}

  /** Adds a timer; false if it was there already. */
  boolean add(long timestamp, K key);

  /** Removes a timer; false if there was none. */
  boolean remove(long timestamp, K key);

  /** The earliest timestamp, or {@link Long#MAX_VALUE} when empty. */
  long peekTimestamp();

  /** Removes and returns the earliest timer, or null when empty. */
  Timer<K> poll();
}

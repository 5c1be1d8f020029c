package io.weir.api.windowing.evictors;

/**
 * An element of a window with its timestamp, as an evictor sees it.
 *
 * @param value the element
 * @param timestamp its timestamp, or {@code Long.MIN_VALUE} when it has none
 */
public record TimestampedValue<T>(T value, long timestamp) {

  public T getValue() {
    return value;
  }

  public long getTimestamp() {
    return timestamp;
  }

  public boolean hasTimestamp() {
    return timestamp != Long.MIN_VALUE;
  }
}

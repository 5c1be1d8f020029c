package io.weir.api.eventtime;

/** Gives a record its event timestamp (epoch millis). */
@FunctionalInterface
public interface TimestampAssigner<T> {

  /** The value {@code recordTimestamp} has when the record carries no timestamp. */
  long NO_TIMESTAMP = Long.MIN_VALUE;

  /**
   * @param element the record
   * @param recordTimestamp the timestamp it already carries, or {@link #NO_TIMESTAMP}
   */
  long extractTimestamp(T element, long recordTimestamp);
}

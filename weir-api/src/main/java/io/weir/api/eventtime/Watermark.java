package io.weir.api.eventtime;

/**
 * A point in event time: no more records with a timestamp at or below {@code timestamp} are
 * expected. Watermarks travel with the records, in order, from sources to every operator.
 *
 * @param timestamp the event time reached, epoch millis
 */
public record Watermark(long timestamp) {

  /** The watermark of an input that has ended: every event-time timer may fire. */
  public static final Watermark MAX_WATERMARK = new Watermark(Long.MAX_VALUE);

  /** Flink's accessor name. */
  public long getTimestamp() {
    return timestamp;
  }
}

package io.weir.runtime.network;

import io.weir.runtime.time.WatermarkValve;
import java.util.Arrays;
import java.util.List;

/**
 * One element of a channel's in-flight data in an unaligned checkpoint, in the order the channel
 * carried it: the bytes of a network buffer, or an in-band event of event time (a watermark or a
 * watermark status) that travelled among the buffers. Keeping the events in place is what lets a
 * restored consumer classify each replayed record as on time or late exactly as the uninterrupted
 * run did; replaying the buffers alone would put the records below the watermark they had.
 *
 * <p>An input channel's recording starts with a {@link Cut}: where event time stood on the channel
 * (and in the task) when the snapshot was taken, which the task restores before it replays any
 * channel.
 */
public sealed interface ChannelStateEntry {

  /** True for the events a channel's in-flight data keeps: those of event time. */
  static boolean isRecorded(ChannelEvent event) {
    return event instanceof ChannelEvent.Watermark || event instanceof ChannelEvent.WatermarkStatus;
  }

  /**
   * Adds what a captured channel element contributes to in-flight data: a copy of its {@code
   * buffer}, or its {@code event} if {@link #isRecorded recorded}. Returns true when it added one.
   *
   * @param buffer the element's buffer, or null if it is none
   * @param event the element's event, or null if it is none
   */
  static boolean addCaptured(Buffer buffer, ChannelEvent event, List<ChannelStateEntry> entries) {
    if (buffer != null) {
      entries.add(new Bytes(buffer.copyOfContent()));
      return true;
    }
    if (event != null && isRecorded(event)) {
      entries.add(new Event(event));
      return true;
    }
    return false;
  }

  /**
   * The bytes of one network buffer: serialized records, the first and last possibly cut.
   *
   * @param bytes the buffer's content (a copy: the buffer itself was recycled)
   */
  record Bytes(byte[] bytes) implements ChannelStateEntry {

    /** Equal to another entry with the same bytes. */
    @Override
    public boolean equals(Object o) {
      return o instanceof Bytes other && Arrays.equals(bytes, other.bytes);
    }

    @Override
    public int hashCode() {
      return Arrays.hashCode(bytes);
    }

    @Override
    public String toString() {
      return "Bytes[" + bytes.length + " bytes]";
    }
  }

  /**
   * A watermark or watermark status, where the channel carried it among the buffers.
   *
   * @param event the event; {@link #isRecorded} holds for it
   */
  record Event(ChannelEvent event) implements ChannelStateEntry {
    public Event {
      if (!isRecorded(event)) {
        throw new IllegalArgumentException("Not an event of channel state: " + event);
      }
    }
  }

  /**
   * The consuming task's event time at the snapshot, as this input channel saw it: the first entry
   * of every input channel's recording in an unaligned checkpoint, even of a channel that recorded
   * nothing else.
   *
   * @param position the channel's part of the task's {@link WatermarkValve} at the snapshot
   */
  record Cut(WatermarkValve.Position position) implements ChannelStateEntry {}
}

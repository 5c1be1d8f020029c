package io.weir.runtime.network;

/**
 * Events travel in-band with the buffers of a channel, in order. {@link #isPriority()} events may
 * overtake buffers queued before them.
 */
public sealed interface ChannelEvent permits ChannelEvent.EndOfPartition {

  /** True for events that jump to the head of the queue. */
  default boolean isPriority() {
    return false;
  }

  /** The producer has sent everything; nothing follows on this channel. */
  record EndOfPartition() implements ChannelEvent {
    public static final EndOfPartition INSTANCE = new EndOfPartition();
  }
}

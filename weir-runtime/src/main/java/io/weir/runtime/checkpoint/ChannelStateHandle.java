package io.weir.runtime.checkpoint;

import io.weir.runtime.storage.StreamStateHandle;

/**
 * The in-flight data one channel held when an unaligned checkpoint's barrier passed it: a run of
 * entries in a stream of checkpoint storage, in the order the channel carried them. The channel's
 * subtask replays them before any new input.
 *
 * <p>An entry is one network buffer's bytes, or an event of event time the channel carried in place
 * among its buffers, or (first, on an input channel) where event time stood at the cut; see {@link
 * io.weir.runtime.network.ChannelStateEntry} and, for the framing, {@link ChannelStateFormat}.
 */
public sealed interface ChannelStateHandle
    permits InputChannelStateHandle, ResultSubpartitionStateHandle {

  /** The stream that holds the entries; several channels of one subtask may share it. */
  StreamStateHandle data();

  /** Where each entry's length prefix starts in {@link #data()}, in the channel's order. */
  long[] offsets();

  /** The channel, in words, for messages and {@code weir inspect}. */
  String channelDescription();
}

package io.weir.runtime.checkpoint;

import io.weir.runtime.storage.StreamStateHandle;

/**
 * The recorded input of one channel of a subtask's input gate: the buffers that arrived before that
 * channel's barrier, after the subtask took its snapshot (Flink's {@code InputChannelStateHandle}).
 *
 * @param channel the channel's index in the gate
 * @param data the stream
 * @param offsets where each entry starts (see {@link ChannelStateHandle})
 */
public record InputChannelStateHandle(int channel, StreamStateHandle data, long[] offsets)
    implements ChannelStateHandle {

  @Override
  public String channelDescription() {
    return "input channel " + channel;
  }
}

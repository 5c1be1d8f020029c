package io.weir.runtime.checkpoint;

import io.weir.runtime.storage.StreamStateHandle;

/**
 * The overtaken output of one channel a subtask writes: the buffers an unaligned barrier jumped
 * over while they still waited at the producer's end (Flink's {@code
 * ResultSubpartitionStateHandle}).
 *
 * @param subpartition which channel: the output edge and the channel's index among the producer's
 *     channels on it (the consumer subtask's index for all-to-all edges, 0 for forward, the
 *     position in the producer's range of consumers for rescale)
 * @param data the stream
 * @param offsets where each entry starts (see {@link ChannelStateHandle})
 */
public record ResultSubpartitionStateHandle(
    ResultSubpartitionInfo subpartition, StreamStateHandle data, long[] offsets)
    implements ChannelStateHandle {

  @Override
  public String channelDescription() {
    return "output edge " + subpartition.edgeId() + " channel " + subpartition.subpartition();
  }
}

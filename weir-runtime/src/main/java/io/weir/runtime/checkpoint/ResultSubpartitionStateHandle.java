package io.weir.runtime.checkpoint;

import io.weir.runtime.storage.StreamStateHandle;

/**
 * The overtaken output of one channel a subtask writes: the buffers an unaligned barrier jumped
 * over while they still waited at the producer's end (Flink's {@code
 * ResultSubpartitionStateHandle}).
 *
 * @param subpartition which channel: the output edge and the consumer subtask's index on it
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

package io.weir.runtime.taskexecutor;

import io.weir.runtime.network.ChannelId;
import io.weir.runtime.network.InputChannel;
import io.weir.runtime.network.ResultSubpartition;
import io.weir.runtime.task.Waker;

/**
 * Channels to and from subtasks that run in other processes. A {@link TaskExecutor} wires channels
 * between its own subtasks locally and asks its data plane for the others: the producer's end of a
 * channel whose consumer is elsewhere, and the feeding of an input channel whose producer is
 * elsewhere. Local execution has none (every subtask is local); a TaskManager's is the Netty data
 * plane.
 */
public interface DataPlane {

  /** This process's data address, as {@link SubtaskLocations} names it. */
  String address();

  /**
   * The producer's end of channel {@code id}, whose consumer runs at {@code consumerAddress}. It
   * holds what the producer sends until the consumer asks for the channel, then streams it under
   * the consumer's credits; {@code producerWaker} is signalled when credit arrives.
   */
  ResultSubpartition createSubpartition(ChannelId id, String consumerAddress, Waker producerWaker);

  /**
   * Feeds {@code channel} with what the producer of channel {@code id}, at {@code producerAddress},
   * sends: connects there (once per process pair), asks for the channel with the gate's credits,
   * and hands the consumer's credits and barrier deliveries back.
   */
  void connectInputChannel(ChannelId id, String producerAddress, InputChannel channel);

  /** Subtask {@code subtask} of {@code vertex} of that attempt ended: its channels are released. */
  void subtaskEnded(String jobId, int attempt, int vertex, int subtask);
}

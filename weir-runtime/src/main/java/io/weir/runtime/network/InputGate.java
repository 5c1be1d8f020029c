package io.weir.runtime.network;

import io.weir.runtime.task.Waker;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;

/**
 * All input channels of one consumer subtask. Producers enqueue into channels; the consumer's task
 * thread polls the next buffer or event from whichever channel has one, round robin, and can block
 * single channels (for barrier alignment) so that their data stays in the bounded channel queues.
 * Producers wake the consumer when a channel becomes non-empty.
 */
public final class InputGate {

  final Object lock = new Object();
  private final List<InputChannel> channels = new ArrayList<>();
  private final ArrayDeque<InputChannel> available = new ArrayDeque<>();
  private final Waker consumerWaker;
  private final int creditsPerChannel;
  private Runnable priorityListener;

  public InputGate(Waker consumerWaker, int creditsPerChannel) {
    if (creditsPerChannel < 1) {
      throw new IllegalArgumentException(
          "taskmanager.network.memory.buffers-per-channel must be at least 1, was "
              + creditsPerChannel);
    }
    this.consumerWaker = consumerWaker;
    this.creditsPerChannel = creditsPerChannel;
  }

  /** Adds a channel during wiring, before threads start. */
  public InputChannel addChannel(int inputIndex, String producerDescription) {
    InputChannel channel = new InputChannel(this, channels.size(), inputIndex, producerDescription);
    channels.add(channel);
    return channel;
  }

  public List<InputChannel> getChannels() {
    return channels;
  }

  public int getNumberOfChannels() {
    return channels.size();
  }

  public int creditsPerChannel() {
    return creditsPerChannel;
  }

  /**
   * Runs {@code listener} whenever a priority event (an overtaking barrier) is enqueued, so that
   * the consumer can take it with {@link #pollPriority()} between two records instead of after the
   * buffer it is reading. Set during wiring, before threads start; it must not block.
   */
  public void setPriorityEventListener(Runnable listener) {
    this.priorityListener = listener;
  }

  void enqueue(InputChannel channel, Object element, boolean priority) {
    synchronized (lock) {
      enqueueLocked(channel, element, priority);
    }
  }

  void enqueueLocked(InputChannel channel, Object element, boolean priority) {
    if (priority) {
      channel.addPriorityLocked(element);
    } else {
      channel.queue().addLast(element);
    }
    markAvailableLocked(channel);
    if (priority && priorityListener != null) {
      priorityListener.run();
    }
  }

  void markAvailableLocked(InputChannel channel) {
    if (!channel.inAvailableQueue && !channel.blocked && !channel.queue().isEmpty()) {
      channel.inAvailableQueue = true;
      available.addLast(channel);
      consumerWaker.signal();
    }
  }

  /**
   * The next buffer or event of any unblocked channel, or null when none has one. The channel it
   * came from is {@link Polled#channel()}.
   */
  public Polled pollNext() {
    boolean consumed = false;
    long delivered = -1;
    Polled polled;
    InputChannel channel;
    synchronized (lock) {
      channel = available.pollFirst();
      if (channel == null) {
        return null;
      }
      Object element = channel.queue().pollFirst();
      channel.inAvailableQueue = false;
      if (!channel.queue().isEmpty() && !channel.blocked) {
        channel.inAvailableQueue = true;
        available.addLast(channel);
      }
      if (element instanceof Buffer) {
        consumed = true;
      } else if (element instanceof InputChannel.Replayed replayed) {
        element = replayed.buffer();
      } else if (element instanceof ChannelEvent.CheckpointBarrier barrier
          && channel.takeDeliveredLocked(barrier)) {
        delivered = barrier.checkpointId();
      }
      polled = new Polled(channel, element);
    }
    // Outside the lock: a local producer's end may wake its task, a remote one sends a message.
    InputChannel.Upstream upstream = channel.upstream();
    if (upstream != null && consumed) {
      upstream.bufferConsumed();
    } else if (upstream != null && delivered >= 0) {
      upstream.barrierDelivered(delivered);
    }
    return polled;
  }

  /**
   * A priority event waiting at the head of an unblocked channel, taken out of turn, or null when
   * there is none: the consumer calls it between records, so an overtaking barrier also overtakes
   * the rest of the buffer being read (whose bytes then become in-flight data of the checkpoint).
   */
  public Polled pollPriority() {
    synchronized (lock) {
      for (InputChannel channel : channels) {
        Object head = channel.queue().peekFirst();
        if (channel.blocked || !(head instanceof ChannelEvent event) || !event.isPriority()) {
          continue;
        }
        channel.queue().pollFirst();
        if (channel.queue().isEmpty() && channel.inAvailableQueue) {
          available.remove(channel);
          channel.inAvailableQueue = false;
        }
        return new Polled(channel, event);
      }
      return null;
    }
  }

  /** Stops reading {@code channel} until {@link #unblock}: its data stays queued. */
  public void block(InputChannel channel) {
    synchronized (lock) {
      channel.blocked = true;
      if (channel.inAvailableQueue) {
        available.remove(channel);
        channel.inAvailableQueue = false;
      }
    }
  }

  public void unblock(InputChannel channel) {
    synchronized (lock) {
      channel.blocked = false;
      markAvailableLocked(channel);
    }
  }

  public void unblockAll() {
    synchronized (lock) {
      for (InputChannel channel : channels) {
        channel.blocked = false;
        markAvailableLocked(channel);
      }
    }
  }

  /**
   * One element taken from a channel.
   *
   * @param channel where it came from
   * @param element a {@link Buffer}, a {@link ChannelEvent}, or an {@link InputChannel.Failed}
   */
  public record Polled(InputChannel channel, Object element) {}
}

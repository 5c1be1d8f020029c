package io.weir.runtime.network;

import io.weir.runtime.task.Waker;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.function.LongSupplier;

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
  private final CreditDepth depth;
  private final boolean adaptive;
  private final LongSupplier nanoClock;
  private Runnable priorityListener;

  /** When the current period of counting consumed buffers began; consumer thread only. */
  private long periodStart;

  private boolean periodStarted;

  /** A gate whose channels keep {@code creditsPerChannel} credits each. */
  public InputGate(Waker consumerWaker, int creditsPerChannel) {
    this(consumerWaker, CreditDepth.fixed(creditsPerChannel));
  }

  public InputGate(Waker consumerWaker, CreditDepth depth) {
    this(consumerWaker, depth, System::nanoTime);
  }

  /** A gate that reads the time for its channels' depths from {@code nanoClock}; for tests. */
  public InputGate(Waker consumerWaker, CreditDepth depth, LongSupplier nanoClock) {
    this.consumerWaker = consumerWaker;
    this.depth = depth;
    this.adaptive = depth.adaptive();
    this.nanoClock = nanoClock;
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

  /** The credits every channel starts with, and the fewest it ever has. */
  public int creditsPerChannel() {
    return depth.min();
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
    boolean replayed = false;
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
      } else if (element instanceof InputChannel.Replayed restored) {
        element = restored.buffer();
        replayed = true;
      } else if (element instanceof ChannelEvent.CheckpointBarrier barrier
          && channel.takeDeliveredLocked(barrier)) {
        delivered = barrier.checkpointId();
      }
      polled = new Polled(channel, element, replayed);
    }
    // Outside the lock: a local producer's end may wake its task, a remote one sends a message.
    InputChannel.Upstream upstream = channel.upstream();
    if (upstream != null && consumed) {
      upstream.bufferConsumed();
      if (adaptive) {
        channel.consumedInPeriod++;
        long now = nanoClock.getAsLong();
        if (now - periodStart >= CreditDepth.PERIOD_NANOS || !periodStarted) {
          resizeChannels(now);
        }
      }
    } else if (upstream != null && delivered >= 0) {
      upstream.barrierDelivered(delivered);
    }
    return polled;
  }

  /**
   * Sets every channel's depth from the buffers taken from it since the last period, and starts the
   * next. Consumer thread, once a period: a method of its own, so that the per-buffer path of
   * {@link #pollNext} stays small.
   */
  private void resizeChannels(long now) {
    long elapsed = now - periodStart;
    boolean first = !periodStarted;
    periodStarted = true;
    periodStart = now;
    for (InputChannel channel : channels) {
      int consumed = channel.consumedInPeriod;
      channel.consumedInPeriod = 0;
      InputChannel.Upstream upstream = channel.upstream();
      if (first || upstream == null) {
        continue;
      }
      int next = depth.next(channel.depth, consumed, elapsed);
      if (next != channel.depth) {
        int delta = next - channel.depth;
        channel.depth = next;
        upstream.depthChanged(delta);
      }
    }
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
   * @param replayed true for a buffer of in-flight data restored from an unaligned checkpoint
   */
  public record Polled(InputChannel channel, Object element, boolean replayed) {

    /** An element received, not replayed. */
    public Polled(InputChannel channel, Object element) {
      this(channel, element, false);
    }
  }
}

package io.weir.runtime.network;

import io.weir.runtime.task.Waker;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A channel within one process: the producer's buffers go straight into the consumer's {@link
 * InputChannel} queue (no copy, no thread hop but the consumer's), and the consumer's taking of a
 * buffer returns the credit here and wakes the producer if it waited for one. Buffers queued in the
 * consumer's channel are still the producer's to overtake, so unaligned barriers capture them at
 * this end.
 */
public final class LocalResultSubpartition implements ResultSubpartition, InputChannel.Upstream {

  private final InputChannel channel;
  private final Waker producerWaker;
  private final AtomicInteger credits;

  /** The channel's depth: all these credits back means the consumer took every buffer. */
  private volatile int fullCredit;

  private volatile BarrierListener listener;

  /** Connects a producer, woken by {@code producerWaker}, to the consumer's {@code channel}. */
  public LocalResultSubpartition(InputChannel channel, Waker producerWaker) {
    this.channel = channel;
    this.producerWaker = producerWaker;
    this.fullCredit = channel.getGate().creditsPerChannel();
    this.credits = new AtomicInteger(fullCredit);
    channel.setUpstream(this);
  }

  public InputChannel channel() {
    return channel;
  }

  @Override
  public boolean hasCredit() {
    return credits.get() > 0;
  }

  @Override
  public boolean isDrained() {
    return credits.get() >= fullCredit;
  }

  /** Credits the producer holds now; for tests and metrics. */
  public int availableCredits() {
    return credits.get();
  }

  @Override
  public void addBuffer(Buffer buffer) {
    credits.decrementAndGet();
    channel.enqueueBuffer(buffer);
  }

  @Override
  public void addEvent(ChannelEvent event) {
    channel.addEvent(event);
  }

  @Override
  public List<ChannelStateEntry> addPriorityEvent(ChannelEvent event) {
    return channel.addPriorityEventAndCaptureOvertaken(event);
  }

  @Override
  public void addConvertibleBarrier(ChannelEvent.CheckpointBarrier barrier) {
    channel.addConvertibleBarrier(barrier);
  }

  @Override
  public void requestConversion(long checkpointId) {
    List<ChannelStateEntry> overtaken = channel.convertToUnaligned(checkpointId);
    if (overtaken != null) {
      listener.converted(checkpointId, overtaken);
    }
  }

  @Override
  public void setBarrierListener(BarrierListener listener) {
    this.listener = listener;
  }

  // ---------------------------------------------------------------- from the consumer

  @Override
  public void bufferConsumed() {
    credit(1);
  }

  @Override
  public void depthChanged(int delta) {
    fullCredit += delta; // the consumer's thread is the only writer
    credit(delta);
  }

  /** {@code n} credits more (fewer when negative); wakes the producer if it now has one again. */
  private void credit(int n) {
    int before = credits.getAndAdd(n);
    if (before <= 0 && before + n > 0) {
      producerWaker.signal();
    }
  }

  @Override
  public void barrierDelivered(long checkpointId) {
    BarrierListener l = listener;
    if (l != null) {
      l.delivered(checkpointId);
    }
  }

  @Override
  public String toString() {
    return "local subpartition to " + channel;
  }
}

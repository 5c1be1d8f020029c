package io.weir.runtime.network;

import io.weir.runtime.task.Waker;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The channel from one producer subtask to one consumer subtask: an ordered queue of buffers and
 * events with credit-based flow control. The producer may enqueue a buffer only while it holds a
 * credit; the consumer returns the credit when it takes the buffer, so at most {@code credits}
 * buffers wait in the channel and a slow consumer back-pressures its producer.
 *
 * <p>The queue is guarded by its gate's lock (one lock per consumer, taken once per buffer, never
 * per record). Priority events are put at the head, ahead of queued buffers, and the queued buffers
 * can be captured in order, which is what unaligned checkpoints need.
 */
public final class InputChannel {

  private final InputGate gate;
  private final int channelIndex;
  private final int inputIndex;
  private final String producerDescription;
  private final AtomicInteger credits;
  private final ArrayDeque<Object> queue = new ArrayDeque<>();
  private Waker producerWaker;

  // Guarded by gate.lock.
  boolean inAvailableQueue;
  boolean blocked;
  // Consumer thread only.
  boolean finished;
  final RecordDeserializer deserializer = new RecordDeserializer();

  InputChannel(
      InputGate gate, int channelIndex, int inputIndex, int credits, String producerDescription) {
    this.gate = gate;
    this.channelIndex = channelIndex;
    this.inputIndex = inputIndex;
    this.credits = new AtomicInteger(credits);
    this.producerDescription = producerDescription;
  }

  /** Set when the producer's task is wired, before any thread starts. */
  public void setProducerWaker(Waker producerWaker) {
    this.producerWaker = producerWaker;
  }

  /** The consumer's deserializer of this channel's byte stream; consumer thread only. */
  public RecordDeserializer getDeserializer() {
    return deserializer;
  }

  public int getChannelIndex() {
    return channelIndex;
  }

  /** Which input of a two-input operator this channel feeds (0 or 1). */
  public int getInputIndex() {
    return inputIndex;
  }

  public InputGate getGate() {
    return gate;
  }

  public String getProducerDescription() {
    return producerDescription;
  }

  // ---------------------------------------------------------------- producer side

  /** True while the producer may enqueue another buffer. */
  public boolean hasCredit() {
    return credits.get() > 0;
  }

  public int availableCredits() {
    return credits.get();
  }

  /** Enqueues a full buffer; the caller must hold a credit. */
  public void addBuffer(Buffer buffer) {
    credits.decrementAndGet();
    gate.enqueue(this, buffer, false);
  }

  /** Enqueues an event after everything sent before; events need no credit. */
  public void addEvent(ChannelEvent event) {
    gate.enqueue(this, event, event.isPriority());
  }

  /**
   * Puts {@code event} at the head of the queue and returns copies of the buffers it overtook, in
   * order: the output side of an unaligned checkpoint's channel state.
   */
  public List<byte[]> addPriorityEventAndCaptureOvertaken(ChannelEvent event) {
    synchronized (gate.lock) {
      List<byte[]> overtaken = captureQueuedBuffersLocked();
      gate.enqueueLocked(this, event, true);
      return overtaken;
    }
  }

  // ---------------------------------------------------------------- consumer side

  /** Copies of the buffers waiting in this channel, oldest first. */
  public List<byte[]> captureQueuedBuffers() {
    synchronized (gate.lock) {
      return captureQueuedBuffersLocked();
    }
  }

  private List<byte[]> captureQueuedBuffersLocked() {
    List<byte[]> copies = new ArrayList<>();
    for (Object element : queue) {
      if (element instanceof Buffer b) {
        copies.add(b.copyOfContent());
      }
    }
    return copies;
  }

  /**
   * Puts restored in-flight buffers in front of anything received, so that they are read first.
   * They take no credit: they were sent before the failure.
   */
  public void prependForReplay(List<byte[]> buffers) {
    synchronized (gate.lock) {
      for (int i = buffers.size() - 1; i >= 0; i--) {
        queue.addFirst(Buffer.wrap(buffers.get(i)));
      }
      gate.markAvailableLocked(this);
    }
  }

  /** Number of buffers queued now; for tests and metrics. */
  public int queuedBuffers() {
    synchronized (gate.lock) {
      int n = 0;
      for (Object element : queue) {
        if (element instanceof Buffer) {
          n++;
        }
      }
      return n;
    }
  }

  // Guarded by gate.lock.
  ArrayDeque<Object> queue() {
    return queue;
  }

  void returnCredit() {
    if (credits.getAndIncrement() == 0 && producerWaker != null) {
      producerWaker.signal();
    }
  }

  @Override
  public String toString() {
    return "channel " + channelIndex + " from " + producerDescription;
  }
}

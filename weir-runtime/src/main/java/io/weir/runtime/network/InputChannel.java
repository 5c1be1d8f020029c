package io.weir.runtime.network;

import io.weir.runtime.task.Waker;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The channel from one producer subtask to one consumer subtask: an ordered queue of buffers and
 * events with credit-based flow control. The producer may enqueue a buffer only while it holds a
 * credit; the consumer returns the credit when it takes the buffer, so at most {@code credits}
 * buffers wait in the channel and a slow consumer back-pressures its producer.
 *
 * <p>The queue is guarded by its gate's lock (one lock per consumer, taken once per buffer, never
 * per record). Priority events are put at the head, ahead of queued buffers (behind priority events
 * already there, so that they keep their order), and the queued buffers can be captured in order,
 * which is what unaligned checkpoints need. An aligned barrier may be enqueued as convertible:
 * until the consumer takes it, the producer can still turn it into an overtaking one (the aligned
 * checkpoint timeout at the output side).
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

  /** Convertible aligned barriers still in the queue, oldest first. Guarded by gate.lock. */
  private final ArrayDeque<ConvertibleBarrier> convertible = new ArrayDeque<>();

  /** An aligned barrier the producer may still convert, and whom to tell when it is taken. */
  private record ConvertibleBarrier(long checkpointId, Runnable onDelivered) {}

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

  /**
   * Enqueues the aligned {@code barrier} after everything sent before, as {@link #addEvent} does,
   * and keeps it convertible: until the consumer takes it, {@link #convertToUnaligned} can still
   * move it ahead of the buffers in front of it. {@code onDelivered} runs on the consumer's thread
   * when the consumer takes the barrier in order (not after a conversion).
   */
  public void addConvertibleBarrier(ChannelEvent.CheckpointBarrier barrier, Runnable onDelivered) {
    if (barrier.unaligned() || barrier.savepoint()) {
      throw new IllegalArgumentException(
          "Only aligned checkpoint barriers can be converted later, not " + barrier);
    }
    synchronized (gate.lock) {
      convertible.addLast(new ConvertibleBarrier(barrier.checkpointId(), onDelivered));
      gate.enqueueLocked(this, barrier, false);
    }
  }

  /**
   * The aligned checkpoint timeout at the producer: if the convertible barrier of {@code
   * checkpointId} still waits in this channel, it becomes an overtaking (unaligned) barrier at the
   * head of the queue, and copies of the buffers it overtook are returned in order — the output
   * side of that checkpoint's channel state. Returns null when the consumer took the barrier
   * already (or it was never convertible); the queue is then unchanged.
   */
  public List<byte[]> convertToUnaligned(long checkpointId) {
    synchronized (gate.lock) {
      if (takeConvertibleLocked(checkpointId) == null) {
        return null;
      }
      List<byte[]> overtaken = new ArrayList<>();
      Iterator<Object> it = queue.iterator();
      while (it.hasNext()) {
        Object element = it.next();
        if (element instanceof Buffer b) {
          overtaken.add(b.copyOfContent());
        } else if (element instanceof ChannelEvent.CheckpointBarrier barrier
            && barrier.checkpointId() == checkpointId
            && !barrier.unaligned()) {
          it.remove();
          gate.enqueueLocked(this, barrier.asUnaligned(), true);
          return overtaken;
        }
      }
      throw new IllegalStateException(
          "The convertible barrier of checkpoint " + checkpointId + " is missing from " + this);
    }
  }

  // ---------------------------------------------------------------- consumer side

  /**
   * The consumer took {@code barrier} from the queue in order: what to run (outside the lock) to
   * tell the producer, or null when it was not convertible. Guarded by gate.lock.
   */
  Runnable takeDeliveredLocked(ChannelEvent.CheckpointBarrier barrier) {
    if (convertible.isEmpty() || barrier.unaligned()) {
      return null;
    }
    ConvertibleBarrier taken = takeConvertibleLocked(barrier.checkpointId());
    return taken == null ? null : taken.onDelivered();
  }

  private ConvertibleBarrier takeConvertibleLocked(long checkpointId) {
    Iterator<ConvertibleBarrier> it = convertible.iterator();
    while (it.hasNext()) {
      ConvertibleBarrier c = it.next();
      if (c.checkpointId() == checkpointId) {
        it.remove();
        return c;
      }
    }
    return null;
  }

  /** Puts a priority event at the head, behind the priority events already there. */
  void addPriorityLocked(Object event) {
    if (queue.isEmpty() || !isPriority(queue.peekFirst())) {
      queue.addFirst(event);
      return;
    }
    ArrayDeque<Object> leading = new ArrayDeque<>();
    while (!queue.isEmpty() && isPriority(queue.peekFirst())) {
      leading.push(queue.pollFirst());
    }
    queue.addFirst(event);
    while (!leading.isEmpty()) {
      queue.addFirst(leading.pop());
    }
  }

  private static boolean isPriority(Object element) {
    return element instanceof ChannelEvent event && event.isPriority();
  }

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

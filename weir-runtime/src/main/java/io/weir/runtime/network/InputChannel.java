package io.weir.runtime.network;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;

/**
 * The consumer's end of the channel from one producer subtask to one consumer subtask: an ordered
 * queue of the buffers and events received, read by the consumer's task thread. The producer's end
 * is a {@link ResultSubpartition}: a {@link LocalResultSubpartition} in the same process, or the
 * data plane's receiver for a producer in another process. What the consumer tells the producer (a
 * buffer taken: one credit back; a convertible barrier taken in order) goes to its {@link
 * Upstream}.
 *
 * <p>The queue is guarded by its gate's lock (one lock per consumer, taken once per buffer, never
 * per record). Priority events are put at the head, ahead of queued buffers (behind priority events
 * already there, so that they keep their order), and the queued buffers can be captured in order,
 * which is what unaligned checkpoints need. An aligned barrier may be enqueued as convertible:
 * until the consumer takes it, it can still be turned into an overtaking one (the aligned
 * checkpoint timeout at the output side).
 *
 * <p>Who records the buffers an overtaking barrier jumps over depends on where they wait: a local
 * producer captures them from this queue ({@link #addPriorityEventAndCaptureOvertaken}); buffers
 * that crossed the network are the consumer's, kept here ({@link #receivePriorityBarrier}) until
 * the consumer handles the barrier and takes them ({@link #takeOvertaken}).
 */
public final class InputChannel {

  /** The producer's side of the feedback from the consumer. */
  public interface Upstream {

    /** The consumer took a buffer from the queue: one credit back to the producer. */
    void bufferConsumed();

    /**
     * The consumer changed the channel's depth ({@link CreditDepth}, {@link #creditDepth} is the
     * new one) by {@code delta}: as many credits more for the producer, or fewer when negative (the
     * producer then waits until the consumer has taken that many more buffers than it hands credits
     * back for).
     */
    void depthChanged(int delta);

    /** The consumer took the convertible barrier of {@code checkpointId} in order. */
    void barrierDelivered(long checkpointId);
  }

  private final InputGate gate;
  private final int channelIndex;
  private final int inputIndex;
  private final String producerDescription;
  private final ArrayDeque<Object> queue = new ArrayDeque<>();
  private volatile Upstream upstream;

  // Guarded by gate.lock.
  boolean inAvailableQueue;
  boolean blocked;

  /** Ids of the convertible aligned barriers still in the queue, oldest first. gate.lock. */
  private final ArrayDeque<Long> convertible = new ArrayDeque<>();

  /** What a barrier from a remote producer overtook here (buffers, events), by checkpoint. */
  private final Map<Long, List<ChannelStateEntry>> overtakenHere = new HashMap<>(2);

  /** The size of receive buffers unless larger ones arrive: the default network buffer size. */
  private static final int RECEIVE_BUFFER_SIZE =
      (int) io.weir.api.config.CoreOptions.NETWORK_BUFFER_SIZE.defaultValue().bytes();

  /** Buffers for data received from a remote producer; the event loop that receives only. */
  private BufferPool receivePool;

  /** Credits the consumer grants this channel now; see {@link CreditDepth}. */
  int depth;

  /** Buffers the consumer took from this channel in the gate's current period. */
  int consumedInPeriod;

  final RecordDeserializer deserializer = new RecordDeserializer();

  InputChannel(InputGate gate, int channelIndex, int inputIndex, String producerDescription) {
    this.gate = gate;
    this.channelIndex = channelIndex;
    this.inputIndex = inputIndex;
    this.producerDescription = producerDescription;
    this.depth = gate.creditsPerChannel();
  }

  /** Set when the channel is wired, before any thread starts. */
  public void setUpstream(Upstream upstream) {
    this.upstream = upstream;
  }

  /** Credits the consumer grants this channel now ({@link CreditDepth}); consumer thread. */
  public int creditDepth() {
    return depth;
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

  // ---------------------------------------------------------------- from the producer's end

  /** Enqueues a buffer; credits are the producer end's business. */
  public void enqueueBuffer(Buffer buffer) {
    gate.enqueue(this, buffer, false);
  }

  /**
   * Enqueues a buffer received from a remote producer: its bytes are copied into a buffer of this
   * channel's own pool, which the consumer recycles when it has read it. The receiving thread only.
   */
  public void receiveBuffer(java.nio.ByteBuffer bytes) {
    int n = bytes.remaining();
    Buffer b = requestReceiveBuffer(n);
    bytes.get(b.memory(), 0, n);
    enqueueReceived(b, n);
  }

  /**
   * A buffer of this channel's own pool with room for {@code size} bytes received from a remote
   * producer, for the receiving thread to fill in place and hand to {@link #enqueueReceived} (or to
   * {@link Buffer#recycle()} if the connection breaks first). The receiving thread only.
   */
  public Buffer requestReceiveBuffer(int size) {
    if (receivePool == null || size > receivePool.bufferSize()) {
      // Sized for full buffers (the first one received may be a partly filled one).
      receivePool = new BufferPool(Math.max(RECEIVE_BUFFER_SIZE, size));
    }
    return receivePool.request();
  }

  /** Enqueues a buffer of {@link #requestReceiveBuffer} whose first {@code size} bytes are set. */
  public void enqueueReceived(Buffer buffer, int size) {
    buffer.setSize(size);
    enqueueBuffer(buffer);
  }

  /** Enqueues an event after everything received before; priority events go to the head. */
  public void addEvent(ChannelEvent event) {
    gate.enqueue(this, event, event.isPriority());
  }

  /**
   * Puts {@code event} at the head of the queue and returns copies of the buffers and the events of
   * event time it overtook, in order: the output side of an unaligned checkpoint's channel state,
   * for a local producer.
   */
  public List<ChannelStateEntry> addPriorityEventAndCaptureOvertaken(ChannelEvent event) {
    synchronized (gate.lock) {
      List<ChannelStateEntry> overtaken = captureQueuedLocked();
      gate.enqueueLocked(this, event, true);
      return overtaken;
    }
  }

  /**
   * An overtaking barrier arrived from a remote producer: it goes to the head of the queue, and
   * copies of the buffers and events of event time it overtook here are kept for the consumer, who
   * records them as the in-flight data of this channel when it handles the barrier ({@link
   * #takeOvertaken}).
   */
  public void receivePriorityBarrier(ChannelEvent.CheckpointBarrier barrier) {
    synchronized (gate.lock) {
      List<ChannelStateEntry> overtaken = captureQueuedLocked();
      if (!overtaken.isEmpty()) {
        overtakenHere.put(barrier.checkpointId(), overtaken);
      }
      gate.enqueueLocked(this, barrier, true);
    }
  }

  /**
   * Enqueues the aligned {@code barrier} after everything received before and keeps it convertible:
   * until the consumer takes it, {@link #convertToUnaligned} can still move it ahead of the buffers
   * in front of it. When the consumer takes it in order, the {@link Upstream} hears of it.
   */
  public void addConvertibleBarrier(ChannelEvent.CheckpointBarrier barrier) {
    if (barrier.unaligned() || barrier.savepoint()) {
      throw new IllegalArgumentException(
          "Only aligned checkpoint barriers can be converted later, not " + barrier);
    }
    synchronized (gate.lock) {
      convertible.addLast(barrier.checkpointId());
      gate.enqueueLocked(this, barrier, false);
    }
  }

  /**
   * The aligned checkpoint timeout at a local producer: if the convertible barrier of {@code
   * checkpointId} still waits in this channel, it becomes an overtaking (unaligned) barrier at the
   * head of the queue, and copies of the buffers and events of event time it overtook are returned
   * in order — the output side of that checkpoint's channel state. Returns null when the consumer
   * took the barrier already (or it was never convertible); the queue is then unchanged.
   */
  public List<ChannelStateEntry> convertToUnaligned(long checkpointId) {
    synchronized (gate.lock) {
      return convertLocked(checkpointId);
    }
  }

  /**
   * The aligned checkpoint timeout at a remote producer: as {@link #convertToUnaligned}, but the
   * overtaken buffers crossed the network and are the consumer's to record ({@link
   * #takeOvertaken}). False when the consumer took the barrier already.
   */
  public boolean convertKeepingOvertaken(long checkpointId) {
    synchronized (gate.lock) {
      List<ChannelStateEntry> overtaken = convertLocked(checkpointId);
      if (overtaken == null) {
        return false;
      }
      if (!overtaken.isEmpty()) {
        overtakenHere.put(checkpointId, overtaken);
      }
      return true;
    }
  }

  private List<ChannelStateEntry> convertLocked(long checkpointId) {
    if (!convertible.remove(checkpointId)) {
      return null;
    }
    List<ChannelStateEntry> overtaken = new ArrayList<>();
    Iterator<Object> it = queue.iterator();
    while (it.hasNext()) {
      Object element = it.next();
      if (addEntry(element, overtaken)) {
        continue;
      }
      if (element instanceof ChannelEvent.CheckpointBarrier barrier
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

  /**
   * The connection to the producer broke: the consumer fails with {@code cause} once it has read
   * what arrived before.
   */
  public void fail(Throwable cause) {
    gate.enqueue(this, new Failed(cause), false);
  }

  /** The producer's end failed; the consumer sees it as the last element of the channel. */
  public record Failed(Throwable cause) {}

  // ---------------------------------------------------------------- consumer side

  /**
   * Copies of the buffers and events of event time that the overtaking barrier of {@code
   * checkpointId} jumped over in this queue after they crossed the network, or null (always null
   * for a local producer, who captured them itself). Consumer thread, when it handles that barrier.
   */
  public List<ChannelStateEntry> takeOvertaken(long checkpointId) {
    synchronized (gate.lock) {
      if (overtakenHere.isEmpty()) {
        return null;
      }
      List<ChannelStateEntry> taken = overtakenHere.remove(checkpointId);
      overtakenHere.keySet().removeIf(id -> id < checkpointId); // given-up checkpoints
      return taken;
    }
  }

  /** The consumer took {@code barrier} from the queue in order. Guarded by gate.lock. */
  boolean takeDeliveredLocked(ChannelEvent.CheckpointBarrier barrier) {
    return !convertible.isEmpty()
        && !barrier.unaligned()
        && convertible.remove(barrier.checkpointId());
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

  /** Copies of the buffers and events of event time waiting in this channel, oldest first. */
  public List<ChannelStateEntry> captureQueued() {
    synchronized (gate.lock) {
      return captureQueuedLocked();
    }
  }

  private List<ChannelStateEntry> captureQueuedLocked() {
    List<ChannelStateEntry> copies = new ArrayList<>();
    for (Object element : queue) {
      addEntry(element, copies);
    }
    return copies;
  }

  /**
   * Adds a copy of {@code element} to {@code entries} if it belongs to in-flight data (a buffer, or
   * an event of event time); returns true when it did.
   */
  private static boolean addEntry(Object element, List<ChannelStateEntry> entries) {
    return ChannelStateEntry.addCaptured(
        bufferOf(element), element instanceof ChannelEvent event ? event : null, entries);
  }

  /**
   * Puts restored in-flight buffers and events in front of anything received, in their order, so
   * that they are read first. The buffers take no credit: they were sent before the failure.
   */
  public void prependForReplay(List<ChannelStateEntry> entries) {
    synchronized (gate.lock) {
      for (int i = entries.size() - 1; i >= 0; i--) {
        ChannelStateEntry entry = entries.get(i);
        if (entry instanceof ChannelStateEntry.Bytes bytes) {
          queue.addFirst(new Replayed(Buffer.wrap(bytes.bytes())));
        } else if (entry instanceof ChannelStateEntry.Event event) {
          queue.addFirst(event.event());
        } else {
          throw new IllegalArgumentException(
              "The event time at the cut is the task's to restore, not " + this + "'s");
        }
      }
      gate.markAvailableLocked(this);
    }
  }

  /** A restored buffer put in front of the queue; it took no credit, so it returns none. */
  record Replayed(Buffer buffer) {}

  /** The buffer a queue element holds, or null for an event. */
  static Buffer bufferOf(Object element) {
    if (element instanceof Buffer b) {
      return b;
    }
    return element instanceof Replayed r ? r.buffer() : null;
  }

  /** Number of buffers queued now; for tests and metrics. */
  public int queuedBuffers() {
    synchronized (gate.lock) {
      int n = 0;
      for (Object element : queue) {
        if (bufferOf(element) != null) {
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

  Upstream upstream() {
    return upstream;
  }

  @Override
  public String toString() {
    return "channel " + channelIndex + " from " + producerDescription;
  }
}

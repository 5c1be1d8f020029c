package io.weir.runtime.network;

import java.util.List;

/**
 * The producer's end of one channel: where a {@link RecordWriter} puts the buffers and events for
 * one consumer subtask. The consumer's end is an {@link InputChannel}. A {@link
 * LocalResultSubpartition} puts them straight into an input channel of the same process (no copy);
 * a remote one sends them over the data plane to an input channel in another process. Both apply
 * the same credit-based flow control: the producer may add a buffer only while it {@link
 * #hasCredit() holds a credit}, and the consumer hands credits back as it takes buffers.
 *
 * <p>The producer task thread calls every method but {@link #setBarrierListener}, which is called
 * during wiring, and {@link #isDrained}. What the consumer tells the producer about convertible
 * barriers arrives as events at the {@link BarrierListener}, on any thread.
 */
public interface ResultSubpartition {

  /** True while the producer may add another buffer. */
  boolean hasCredit();

  /**
   * True when the consumer has taken every buffer added so far: nothing of this channel waits for
   * it at either end, so a partly filled buffer is all it could be waiting for. Any thread.
   */
  boolean isDrained();

  /** Adds a full buffer; the caller holds a credit (restored buffers being replayed need none). */
  void addBuffer(Buffer buffer);

  /** Adds an event after everything added before; events need no credit. */
  void addEvent(ChannelEvent event);

  /**
   * Adds {@code event} ahead of the buffers that still wait at this end and returns copies of them
   * and of the events of event time among them, in order: the output side of an unaligned
   * checkpoint's in-flight data. What already reached a remote consumer is overtaken there, and
   * that consumer records it.
   */
  List<ChannelStateEntry> addPriorityEvent(ChannelEvent event);

  /**
   * Adds the aligned {@code barrier} in order and keeps it convertible: until the consumer takes
   * it, {@link #requestConversion} can still make it overtake the buffers in front of it. Exactly
   * one of {@link BarrierListener#delivered} and {@link BarrierListener#converted} follows for it.
   */
  void addConvertibleBarrier(ChannelEvent.CheckpointBarrier barrier);

  /**
   * The aligned checkpoint timeout at the producer: asks that the convertible barrier of {@code
   * checkpointId}, if the consumer has not taken it yet, overtake the buffers before it. The
   * outcome arrives at the {@link BarrierListener}; nothing happens when it was delivered already.
   */
  void requestConversion(long checkpointId);

  /** Where the outcomes of convertible barriers go; set once, before the producer runs. */
  void setBarrierListener(BarrierListener listener);

  /** The producer task ended: no more buffers or events follow; frees what this end holds. */
  default void release() {}

  /** What became of the convertible barriers of one subpartition. */
  interface BarrierListener {

    /** The consumer took the aligned barrier of {@code checkpointId} in order. */
    void delivered(long checkpointId);

    /**
     * The barrier of {@code checkpointId} overtook buffers; {@code overtakenHere} are copies of
     * those that waited at the producer's end and of the events of event time among them, in order
     * (the consumer records what had reached it).
     */
    void converted(long checkpointId, List<ChannelStateEntry> overtakenHere);
  }
}

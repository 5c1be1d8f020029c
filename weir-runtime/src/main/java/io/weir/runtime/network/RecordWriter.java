package io.weir.runtime.network;

import io.weir.api.typeutils.DataOutputSerializer;
import io.weir.api.typeutils.TypeSerializer;
import io.weir.runtime.metrics.TimerGauge;
import io.weir.runtime.task.CancelTaskException;
import io.weir.runtime.task.Waker;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BooleanSupplier;

/**
 * Serializes the records of one producer subtask into buffers, one buffer being filled per channel,
 * and hands full buffers to the channels chosen by the selector. A record is serialized once (also
 * when broadcast) and copied into buffers; nothing is allocated per record.
 *
 * <p>Producer task thread only. The task asks {@link #isAvailable()} before taking more input, so
 * that it never blocks inside a record unless one record spans more buffers than it has credits.
 */
public final class RecordWriter<T> {

  /** Timestamp value meaning "this record has none". */
  public static final long NO_TIMESTAMP = Long.MIN_VALUE;

  private final ResultSubpartition[] channels;
  private final Buffer[] current;

  /**
   * Per channel, the partly filled buffer that was already there at the last {@link #flushAged}
   * tick: its first record has waited at least one tick.
   */
  private final Buffer[] seenAtLastTick;

  /**
   * Whether a channel may hold a partly filled buffer: set by the task thread once per new buffer,
   * read by the timer thread, which posts no flush to a task with nothing to flush.
   */
  private volatile boolean holdsPartialBuffers;

  private final ChannelSelector<T> selector;
  private final TypeSerializer<T> serializer;
  private final BufferPool pool;
  private final boolean flushAlways;
  private final DataOutputSerializer staging = new DataOutputSerializer(128);

  /**
   * The length of every record, if the serializer has a fixed one ({@link
   * TypeSerializer#getLength()}), or -1.
   */
  private final int fixedLength;

  /**
   * Writes a record of {@link #fixedLength} straight into its channel's buffer when it fits there,
   * with no copy through {@link #staging}.
   */
  private final DataOutputSerializer direct = new DataOutputSerializer(1);

  private final Waker ownWaker;
  private final BooleanSupplier cancelled;

  /**
   * Counts the time an emit waits for a channel's credit (the task's back-pressured time); null for
   * none. Set during wiring, before the producer runs.
   */
  private TimerGauge backPressure;

  /**
   * Bytes handed to the channels, a broadcast record's once per channel: Flink's {@code
   * numBytesOut} of this output. Counted per buffer as it leaves, not per record, so records still
   * in a partly filled buffer count once it is sent. Written by the producer task thread only, read
   * without a lock by the metrics (a recent value).
   */
  private long bytesSent;

  public RecordWriter(
      ResultSubpartition[] channels,
      ChannelSelector<T> selector,
      TypeSerializer<T> serializer,
      int bufferSize,
      boolean flushAlways,
      Waker ownWaker,
      BooleanSupplier cancelled) {
    this.channels = channels.clone();
    this.current = new Buffer[channels.length];
    this.seenAtLastTick = new Buffer[channels.length];
    this.selector = selector;
    this.serializer = serializer;
    this.fixedLength = serializer.getLength();
    this.pool = new BufferPool(bufferSize);
    this.flushAlways = flushAlways;
    this.ownWaker = ownWaker;
    this.cancelled = cancelled;
  }

  public int getNumberOfChannels() {
    return channels.length;
  }

  /**
   * The bytes of serialized records (their framing included; events not) this writer handed to its
   * channels so far; any thread, a recent value from other than the producer's.
   */
  public long bytesSent() {
    return bytesSent;
  }

  /**
   * Counts the time an emit waits for credit into {@code timer}: once per wait, never per record.
   * Set during wiring, before the producer runs.
   */
  public void setBackPressureTimer(TimerGauge timer) {
    this.backPressure = timer;
  }

  public ResultSubpartition getSubpartition(int index) {
    return channels[index];
  }

  /**
   * Where the outcomes of this writer's convertible barriers go, with the index of the channel; set
   * once during wiring, before the producer runs.
   */
  public void setBarrierListener(ChannelBarrierListener listener) {
    for (int c = 0; c < channels.length; c++) {
      int channel = c;
      channels[c].setBarrierListener(
          new ResultSubpartition.BarrierListener() {
            @Override
            public void delivered(long checkpointId) {
              listener.delivered(channel, checkpointId);
            }

            @Override
            public void converted(long checkpointId, List<ChannelStateEntry> overtakenHere) {
              listener.converted(channel, checkpointId, overtakenHere);
            }
          });
    }
  }

  /** {@link ResultSubpartition.BarrierListener} for every channel of a writer. */
  public interface ChannelBarrierListener {
    void delivered(int channel, long checkpointId);

    void converted(int channel, long checkpointId, List<ChannelStateEntry> overtakenHere);
  }

  public void emit(T record, long timestamp) {
    if (selector.isBroadcast()) {
      int length = stage(record, timestamp);
      for (int c = 0; c < channels.length; c++) {
        copyToChannel(c, length);
      }
    } else {
      int c = selector.selectChannel(record);
      if (fixedLength < 0 || !emitInPlace(c, record, timestamp)) {
        copyToChannel(c, stage(record, timestamp));
      }
    }
    if (flushAlways) {
      flushAll();
    }
  }

  /** Serializes a framed record into {@link #staging} and returns its length. */
  private int stage(T record, long timestamp) {
    staging.clear();
    try {
      staging.writeInt(0);
      if (timestamp != NO_TIMESTAMP) {
        staging.writeLong(timestamp);
      }
      serializer.serialize(record, staging);
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot serialize record " + record, e);
    }
    int length = staging.length();
    int header = (length - 4) | (timestamp != NO_TIMESTAMP ? RecordDeserializer.TIMESTAMP_FLAG : 0);
    staging.setPosition(0);
    staging.writeInt(header);
    staging.setPosition(length);
    return length;
  }

  /**
   * Serializes a record of the fixed length straight into channel {@code c}'s buffer, framed as
   * {@link #stage} frames it, and returns true; or returns false, writing nothing, when the buffer
   * has no room left for all of it.
   */
  private boolean emitInPlace(int c, T record, long timestamp) {
    Buffer b = currentBuffer(c);
    boolean stamped = timestamp != NO_TIMESTAMP;
    int payload = (stamped ? 8 : 0) + fixedLength;
    int start = b.size();
    int end = start + 4 + payload;
    if (end > b.capacity()) {
      return false;
    }
    direct.wrap(b.memory(), start);
    try {
      direct.writeInt(payload | (stamped ? RecordDeserializer.TIMESTAMP_FLAG : 0));
      if (stamped) {
        direct.writeLong(timestamp);
      }
      serializer.serialize(record, direct);
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot serialize record " + record, e);
    }
    if (direct.getSharedBuffer() != b.memory() || direct.length() != end) {
      throw new IllegalStateException(
          serializer.getClass().getName()
              + " says its records are "
              + fixedLength
              + " bytes long but wrote "
              + (direct.length() - start - 4 - (stamped ? 8 : 0))
              + " for "
              + record
              + "; its getLength() must return -1 unless every record has that length");
    }
    b.setSize(end);
    if (end == b.capacity()) {
      awaitCredit(c);
      send(c);
    }
    return true;
  }

  private Buffer currentBuffer(int c) {
    Buffer b = current[c];
    if (b == null) {
      b = pool.request();
      current[c] = b;
      if (!holdsPartialBuffers) {
        holdsPartialBuffers = true;
      }
    }
    return b;
  }

  private void copyToChannel(int c, int length) {
    byte[] source = staging.getSharedBuffer();
    int offset = 0;
    while (offset < length) {
      Buffer b = currentBuffer(c);
      int n = Math.min(length - offset, b.capacity() - b.size());
      System.arraycopy(source, offset, b.memory(), b.size(), n);
      b.setSize(b.size() + n);
      offset += n;
      if (b.size() == b.capacity()) {
        awaitCredit(c);
        send(c);
      }
    }
  }

  private void send(int c) {
    bytesSent += current[c].size();
    channels[c].addBuffer(current[c]);
    current[c] = null;
    seenAtLastTick[c] = null;
  }

  private void awaitCredit(int c) {
    if (channels[c].hasCredit()) {
      return;
    }
    TimerGauge timer = backPressure;
    if (timer != null) {
      timer.markStart(System.nanoTime());
    }
    try {
      while (!channels[c].hasCredit()) {
        if (cancelled.getAsBoolean()) {
          throw new CancelTaskException();
        }
        ownWaker.await(Long.MAX_VALUE);
      }
    } finally {
      if (timer != null) {
        timer.markEnd(System.nanoTime());
      }
    }
  }

  /** True when every channel can take another buffer, so the next record will not block. */
  public boolean isAvailable() {
    for (ResultSubpartition channel : channels) {
      if (!channel.hasCredit()) {
        return false;
      }
    }
    return true;
  }

  /**
   * Sends partly filled buffers to the channels that have a credit; the others keep theirs until a
   * credit returns. Called when the task runs out of input, and after every record when the buffer
   * timeout is 0.
   */
  public void flushAll() {
    flush(false);
  }

  /**
   * One tick of the buffer timeout: sends the partly filled buffers that were already there at the
   * last tick to the channels whose consumer has taken everything sent before ({@link
   * ResultSubpartition#isDrained}), and marks the others. A record so waits at most two ticks for a
   * consumer that has nothing else of its channel to take, and a buffer that fills within a tick is
   * never sent part-full: a short timeout costs a busy channel nothing, where flushing every buffer
   * at every tick would cut them all. A consumer with buffers of the channel still to take is busy
   * with records older than the partly filled buffer's, so that buffer keeps filling until it is
   * full or the consumer has caught up: under back-pressure the buffers go out full, where cutting
   * them would only multiply the buffers, credits and wake-ups per record.
   */
  public void flushAged() {
    flush(true);
  }

  /**
   * Whether a tick of the buffer timeout may find a buffer to send: a channel may hold a partly
   * filled buffer and one has a drained consumer. Any thread; the timer asks before it wakes the
   * task, so that a back-pressured producer is not woken every tick for nothing.
   */
  public boolean mayFlushAged() {
    if (!holdsPartialBuffers) {
      return false;
    }
    for (ResultSubpartition channel : channels) {
      if (channel.isDrained()) {
        return true;
      }
    }
    return false;
  }

  private void flush(boolean onlyAged) {
    boolean partial = false;
    for (int c = 0; c < channels.length; c++) {
      Buffer b = current[c];
      if (b == null || b.size() == 0) {
        continue;
      }
      if (onlyAged ? seenAtLastTick[c] == b && channels[c].isDrained() : channels[c].hasCredit()) {
        send(c);
      } else {
        if (onlyAged) {
          seenAtLastTick[c] = b;
        }
        partial = true;
      }
    }
    if (holdsPartialBuffers != partial) {
      holdsPartialBuffers = partial;
    }
  }

  /**
   * Sends every pending buffer, then {@code event}, on every channel. Never waits: a partly filled
   * buffer goes out even without a credit (the channel then owes one), so a barrier is never stuck
   * behind back-pressure in the producer. Memory stays bounded: at most one such buffer per channel
   * and event.
   */
  public void broadcastEvent(ChannelEvent event) {
    for (int c = 0; c < channels.length; c++) {
      Buffer b = current[c];
      if (b != null && b.size() > 0) {
        send(c);
      }
      channels[c].addEvent(event);
    }
  }

  /**
   * Sends every pending buffer, then the aligned {@code barrier}, on every channel, as {@link
   * #broadcastEvent} does, but keeps the barrier convertible: until its consumer takes it, {@link
   * #requestConversion} can still make it overtake the buffers in front of it. The outcome per
   * channel arrives at the {@link #setBarrierListener listener}.
   */
  public void broadcastConvertibleBarrier(ChannelEvent.CheckpointBarrier barrier) {
    for (int c = 0; c < channels.length; c++) {
      Buffer b = current[c];
      if (b != null && b.size() > 0) {
        send(c);
      }
      channels[c].addConvertibleBarrier(barrier);
    }
  }

  /**
   * The aligned checkpoint timeout at the output: asks channel {@code c} to let the convertible
   * barrier of {@code checkpointId}, if still on its way, jump ahead of the buffers queued before
   * it; the outcome arrives at the listener.
   */
  public void requestConversion(int c, long checkpointId) {
    channels[c].requestConversion(checkpointId);
  }

  /** Buffers this writer ever allocated; bounded by channels x (most credits of a channel + 2). */
  public int getBuffersCreated() {
    return pool.buffersCreated();
  }

  /**
   * Sends {@code event} ahead of everything queued in every channel (an unaligned barrier) and
   * returns, per channel, copies of the buffers it overtook, the pending partly filled buffer
   * included, and of the events of event time among them: this writer's part of the checkpoint's
   * in-flight data.
   */
  public List<List<ChannelStateEntry>> broadcastPriorityEvent(ChannelEvent event) {
    List<List<ChannelStateEntry>> overtaken = new ArrayList<>(channels.length);
    for (int c = 0; c < channels.length; c++) {
      Buffer b = current[c];
      if (b != null && b.size() > 0) {
        send(c);
      }
      overtaken.add(channels[c].addPriorityEvent(event));
    }
    return overtaken;
  }

  /**
   * Puts restored in-flight buffers and events into channel {@code c}, in their order, before any
   * new record.
   */
  public void replay(int c, List<ChannelStateEntry> entries) {
    for (ChannelStateEntry entry : entries) {
      if (entry instanceof ChannelStateEntry.Bytes bytes) {
        // Counted as sent: the consumer counts them as read when it takes them.
        bytesSent += bytes.bytes().length;
        channels[c].addBuffer(Buffer.wrap(bytes.bytes()));
      } else if (entry instanceof ChannelStateEntry.Event event) {
        channels[c].addEvent(event.event());
      } else {
        throw new IllegalArgumentException(
            "Output channel " + c + " has no event time to restore: " + entry);
      }
    }
  }

  /** Releases buffers not yet sent and the channels' ends; after the task stopped. */
  public void clear() {
    for (int c = 0; c < current.length; c++) {
      if (current[c] != null) {
        current[c].recycle();
        current[c] = null;
      }
      channels[c].release();
    }
  }
}

package io.weir.cluster.data;

import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.util.concurrent.AbstractEventExecutor;
import io.weir.runtime.network.Buffer;
import io.weir.runtime.network.ChannelEvent;
import io.weir.runtime.network.ChannelId;
import io.weir.runtime.network.ChannelStateEntry;
import io.weir.runtime.network.CreditDepth;
import io.weir.runtime.network.ResultSubpartition;
import io.weir.runtime.task.Waker;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

/**
 * The producer's end of a channel whose consumer runs in another process. Until the consumer asks
 * for the channel it holds what the producer adds (events, and the few buffers that need no
 * credit); then it streams everything over the connection, in order. It starts without credit: the
 * consumer's request brings the first credits, every buffer the consumer takes one more, so at most
 * that many buffers are ever on their way and a slow consumer back-pressures this producer across
 * the network as it does locally.
 *
 * <p>Buffers that reached the consumer are the consumer's to record when an overtaking barrier
 * jumps over them; only those still held here are captured here. Guarded by this object; the
 * producer's task thread adds, the connection's event loop attaches and delivers feedback.
 */
final class RemoteSubpartition implements ResultSubpartition {

  private final ChannelId id;
  private final Waker producerWaker;
  private final Consumer<RemoteSubpartition> onReleased;
  private final AtomicInteger credits = new AtomicInteger();

  /** The credits the consumer's request brought: all of them back means it took every buffer. */
  private volatile int fullCredit = Integer.MAX_VALUE;

  /** How far the consumer moved the channel's depth from {@link #fullCredit} since its request. */
  private final AtomicInteger depthChange = new AtomicInteger();

  /** Buffer frames handed to the connection's event loop without waking it, not written yet. */
  private final AtomicInteger lazyWrites = new AtomicInteger();

  /** Buffers ever handed over lazily; for tests. */
  private long lazyWritesMade;

  private volatile BarrierListener listener;

  /** What was added before the consumer attached: Buffers and Pending events, in order. */
  private final ArrayDeque<Object> held = new ArrayDeque<>();

  private Channel connection;
  private int stream;
  private boolean endOfPartitionAdded;
  private boolean released;

  private record Pending(byte kind, ChannelEvent event) {}

  RemoteSubpartition(ChannelId id, Waker producerWaker, Consumer<RemoteSubpartition> onReleased) {
    this.id = id;
    this.producerWaker = producerWaker;
    this.onReleased = onReleased;
  }

  ChannelId id() {
    return id;
  }

  /** The consumer asked for the channel on {@code connection}: what was held goes out first. */
  void attach(Channel connection, int stream, int initialCredits) {
    synchronized (this) {
      if (released && !endOfPartitionAdded) {
        return;
      }
      this.connection = connection;
      this.stream = stream;
      for (Object element : held) {
        if (element instanceof Buffer b) {
          write(frame(b));
        } else {
          Pending p = (Pending) element;
          write(Frames.event(connection.alloc(), stream, p.kind(), p.event()));
        }
      }
      held.clear();
      connection.flush();
    }
    fullCredit = initialCredits;
    credit(initialCredits);
    if (released) {
      onReleased.accept(this); // finished before its consumer asked: everything is out now
    }
  }

  /** Credits the consumer announced. */
  void credit(int n) {
    int before = credits.getAndAdd(n);
    if (before <= 0 && before + n > 0) {
      producerWaker.signal();
    }
  }

  /** The consumer changed the channel's depth: {@code delta} credits more, or fewer. */
  void depthChanged(int delta) {
    depthChange.addAndGet(delta);
    credit(delta);
  }

  /** The consumer took the convertible barrier of {@code checkpointId} in order. */
  void delivered(long checkpointId) {
    BarrierListener l = listener;
    if (l != null) {
      l.delivered(checkpointId);
    }
  }

  /** The consumer converted the barrier of {@code checkpointId}; it recorded what it overtook. */
  void converted(long checkpointId) {
    BarrierListener l = listener;
    if (l != null) {
      l.converted(checkpointId, List.of());
    }
  }

  /** The consumer's connection closed: nothing more can be sent. */
  synchronized void detach() {
    connection = null;
    released = true;
  }

  @Override
  public boolean hasCredit() {
    return credits.get() > 0;
  }

  @Override
  public boolean isDrained() {
    return credits.get() >= (long) fullCredit + depthChange.get();
  }

  @Override
  public void addBuffer(Buffer buffer) {
    int creditsLeft = credits.decrementAndGet();
    synchronized (this) {
      if (connection != null) {
        send(frame(buffer), creditsLeft);
      } else if (!released) {
        held.addLast(buffer);
      } else {
        buffer.recycle();
      }
    }
  }

  @Override
  public void addEvent(ChannelEvent event) {
    add(event.isPriority() ? Frames.PRIORITY : Frames.IN_ORDER, event);
  }

  @Override
  public List<ChannelStateEntry> addPriorityEvent(ChannelEvent event) {
    synchronized (this) {
      if (connection != null || released) {
        add(Frames.PRIORITY, event);
        return List.of();
      }
      List<ChannelStateEntry> overtaken = new ArrayList<>();
      for (Object element : held) {
        addEntry(element, overtaken);
      }
      addPriorityHeld(new Pending(Frames.PRIORITY, event));
      return overtaken;
    }
  }

  /**
   * Adds a copy of a held {@code element} to {@code entries} if it belongs to in-flight data (a
   * buffer, or an event of event time); returns true when it did.
   */
  private static boolean addEntry(Object element, List<ChannelStateEntry> entries) {
    return ChannelStateEntry.addCaptured(
        element instanceof Buffer b ? b : null,
        element instanceof Pending p ? p.event() : null,
        entries);
  }

  /** Puts a priority event at the head of what is held, behind priority events already there. */
  private void addPriorityHeld(Pending event) {
    ArrayDeque<Object> leading = new ArrayDeque<>();
    while (!held.isEmpty()
        && held.peekFirst() instanceof Pending p
        && p.kind() == Frames.PRIORITY) {
      leading.push(held.pollFirst());
    }
    held.addFirst(event);
    while (!leading.isEmpty()) {
      held.addFirst(leading.pop());
    }
  }

  @Override
  public void addConvertibleBarrier(ChannelEvent.CheckpointBarrier barrier) {
    add(Frames.CONVERTIBLE, barrier);
  }

  @Override
  public void requestConversion(long checkpointId) {
    List<ChannelStateEntry> overtaken = null;
    synchronized (this) {
      if (connection != null) {
        write(Frames.streamLong(connection.alloc(), Frames.CONVERT, stream, checkpointId));
        connection.flush();
        return;
      }
      // Still held here: convert it here, as a local channel would.
      List<ChannelStateEntry> before = new ArrayList<>();
      for (Iterator<Object> it = held.iterator(); it.hasNext(); ) {
        Object element = it.next();
        if (addEntry(element, before)) {
          continue;
        }
        if (element instanceof Pending p
            && p.kind() == Frames.CONVERTIBLE
            && p.event() instanceof ChannelEvent.CheckpointBarrier barrier
            && barrier.checkpointId() == checkpointId) {
          it.remove();
          addPriorityHeld(new Pending(Frames.PRIORITY, barrier.asUnaligned()));
          overtaken = before;
          break;
        }
      }
    }
    if (overtaken != null) {
      listener.converted(checkpointId, overtaken);
    }
  }

  @Override
  public void setBarrierListener(BarrierListener listener) {
    this.listener = listener;
  }

  @Override
  public void release() {
    boolean done;
    synchronized (this) {
      released = true;
      // A producer that finished keeps what it holds until the consumer asks; one that failed or
      // was cancelled drops it.
      if (!endOfPartitionAdded) {
        for (Object element : held) {
          if (element instanceof Buffer b) {
            b.recycle();
          }
        }
        held.clear();
      }
      done = held.isEmpty();
    }
    if (done) {
      onReleased.accept(this);
    }
  }

  private void add(byte kind, ChannelEvent event) {
    synchronized (this) {
      if (event instanceof ChannelEvent.EndOfPartition) {
        endOfPartitionAdded = true;
      }
      if (connection != null) {
        write(Frames.event(connection.alloc(), stream, kind, event));
        connection.flush();
      } else if (!released) {
        if (kind == Frames.PRIORITY) {
          addPriorityHeld(new Pending(kind, event));
        } else {
          held.addLast(new Pending(kind, event));
        }
      }
    }
  }

  /**
   * Hands a buffer's frame to the connection's event loop: at once, waking the loop, or, while the
   * consumer has enough of this channel's buffers not yet paid for, lazily, to be written when the
   * loop next wakes (for the consumer's next credits on this connection, or anything else it
   * serves). On W8's two TaskManagers a producer that has used most of its credits writes its last
   * few buffers of a batch this way, and the loops wake once a batch instead of once a buffer.
   *
   * <p>A lazy write never leaves the consumer waiting for it. It is made only while buffers the
   * consumer has been sent and has not announced the credits of yet (queued there, on their way, or
   * taken with their credits still due) number at least the consumer's {@link
   * CreditDepth#announceAt announcement threshold}, the lazy ones not counted. Those are all the
   * consumer's to take until it announces, and it announces at once when the credits due reach the
   * threshold; the announcement wakes this loop, which then writes every lazy frame. A depth that
   * grows at the consumer raises its threshold before this end knows; the DEPTH frame that says so
   * wakes this loop too. (Keeping a quarter of the depth in reserve beyond the threshold, so that
   * the consumer never runs dry while its announcement travels, gave back most of the gain on W8.)
   */
  private void send(ByteBuf frame, int creditsLeft) {
    Channel c = connection;
    long depth = (long) fullCredit + depthChange.get();
    long notYetPaid = depth - creditsLeft - lazyWrites.get() - 1;
    if (fullCredit != Integer.MAX_VALUE
        && notYetPaid >= CreditDepth.announceAt((int) depth)
        && c.eventLoop() instanceof AbstractEventExecutor loop) {
      lazyWrites.incrementAndGet();
      lazyWritesMade++;
      loop.lazyExecute(
          () -> {
            c.write(frame);
            if (lazyWrites.decrementAndGet() == 0) {
              c.flush();
            }
          });
    } else {
      c.writeAndFlush(frame);
    }
  }

  /** How many buffers were handed to the event loop without waking it; for tests. */
  synchronized long lazyWritesMade() {
    return lazyWritesMade;
  }

  /** The frame of {@code b}, which holds a copy of its bytes: {@code b} goes back to its pool. */
  private ByteBuf frame(Buffer b) {
    ByteBuf frame = Frames.buffer(connection.alloc(), stream, b.memory(), b.size());
    b.recycle();
    return frame;
  }

  private void write(ByteBuf frame) {
    connection.write(frame);
  }

  @Override
  public String toString() {
    return "remote subpartition " + id;
  }
}

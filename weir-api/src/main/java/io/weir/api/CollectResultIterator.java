package io.weir.api;

import io.weir.api.typeutils.DataInputDeserializer;
import io.weir.api.typeutils.TypeSerializer;
import io.weir.api.util.CloseableIterator;
import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.ArrayDeque;
import java.util.NoSuchElementException;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

/**
 * The iterator {@code executeAndCollect} returns: the elements of the job's {@link CollectSink}, in
 * the order the sink wrote them, until the job ends; a failed job's exception is thrown from {@link
 * #hasNext} once the elements before it were read. {@link #close} cancels the job if it still runs.
 *
 * <p>It listens on a port of its own ({@link CollectEndpoint}) for the sink's connection; a thread
 * per connection receives the elements. With checkpointing, an element becomes visible to the
 * reader once a checkpoint after it completed, or once the job finished: a restart from a
 * checkpoint drops the elements received after it, which the restored job sends again, so the
 * reader sees every element exactly once (as with Flink's collect sink). Until then they wait here,
 * up to a checkpoint interval's worth. Without checkpointing an element is visible at once, and a
 * restart (which starts the job over) drops those not read yet: the ones read come again, at least
 * once, as on Flink. The receiving thread stops taking elements while {@link CollectSink#CAPACITY}
 * visible ones wait for the reader, which back-pressures the job.
 *
 * <p>{@link #hasNext}, {@link #next} and {@link #close} are for the caller's thread.
 */
final class CollectResultIterator<T> implements CloseableIterator<T> {

  private final TypeSerializer<T> serializer;
  private final ServerSocket server;
  private final String token = UUID.randomUUID().toString();
  private final String address;
  private final Set<Socket> connections = ConcurrentHashMap.newKeySet();
  private JobClient client;

  // Guarded by lock.
  private final Object lock = new Object();

  /** Elements the reader may take, in order; the last one numbered {@code firstUncommitted - 1}. */
  private final ArrayDeque<byte[]> visible = new ArrayDeque<>();

  /** Elements received and not visible yet, numbered from {@code received - size}. */
  private final ArrayDeque<byte[]> uncommitted = new ArrayDeque<>();

  /** The number of the next element to receive. */
  private long received;

  /** Elements numbered below it are final: a checkpoint after them completed. */
  private long committed;

  /** The newest connection: older ones (of attempts before a restart) are ignored. */
  private int generation;

  private RuntimeException failure;
  private boolean discarding;

  /** How long the iterator reads the sink's connections after the job ended. */
  private static final long DRAIN_NANOS = TimeUnit.SECONDS.toNanos(10);

  // The caller's thread.
  private long endedAt;
  private T next;
  private boolean hasNext;
  private boolean closed;

  private CollectResultIterator(TypeSerializer<T> serializer) throws IOException {
    this.serializer = serializer;
    this.server = new ServerSocket(0, 50, InetAddress.getByName(CollectEndpoint.bindHost()));
    this.address = token + "@" + CollectEndpoint.advertisedHost() + ":" + server.getLocalPort();
    Thread acceptor = new Thread(this::accept, "weir-collect-accept-" + server.getLocalPort());
    acceptor.setDaemon(true);
    acceptor.start();
  }

  /** An iterator listening for its sink; {@link #start} it with the job's client. */
  static <T> CollectResultIterator<T> open(TypeSerializer<T> serializer) throws IOException {
    return new CollectResultIterator<>(serializer);
  }

  /** What the sink connects to: {@code token@host:port}. */
  String address() {
    return address;
  }

  CollectResultIterator<T> start(JobClient client) {
    this.client = client;
    // The reader waits on the lock: the job's end is one of the events it waits for.
    client
        .getJobExecutionResult()
        .whenComplete(
            (result, failure) -> {
              synchronized (lock) {
                lock.notifyAll();
              }
            });
    return this;
  }

  @Override
  public boolean hasNext() {
    if (hasNext) {
      return true;
    }
    if (closed) {
      return false;
    }
    CompletableFuture<JobExecutionResult> result = client.getJobExecutionResult();
    byte[] bytes;
    try {
      synchronized (lock) {
        while (true) {
          boolean ended = result.isDone();
          if (failure != null) {
            break;
          }
          if (ended && !result.isCompletedExceptionally()) {
            // Every element was received before the job finished, and none will come again.
            committed = Long.MAX_VALUE;
            settle();
          }
          bytes = visible.poll();
          if (bytes != null) {
            lock.notifyAll();
            next = serializer.deserialize(new DataInputDeserializer(bytes));
            hasNext = true;
            return true;
          }
          if (ended) {
            // A sink that ended without its end-of-input handshake (a stop with a savepoint) may
            // have sent results this side has not read yet: read until its connection closes.
            if (endedAt == 0) {
              endedAt = System.nanoTime();
            }
            long drainLeft = DRAIN_NANOS - (System.nanoTime() - endedAt);
            boolean draining =
                !result.isCompletedExceptionally() && !connections.isEmpty() && drainLeft > 0;
            if (!draining) {
              break;
            }
            // Until an element or the connection's close, at most what is left of the drain.
            TimeUnit.NANOSECONDS.timedWait(lock, drainLeft);
          } else {
            lock.wait(); // an element, a failure, or the job's end (see start) wakes it
          }
        }
      }
      RuntimeException broken = failure;
      close();
      if (broken != null) {
        throw broken;
      }
      result.get();
      return false;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("Interrupted while waiting for the job's results", e);
    } catch (IOException e) {
      throw new IllegalStateException("Cannot read a result of executeAndCollect: " + e, e);
    } catch (ExecutionException e) {
      Throwable cause = e.getCause();
      throw cause instanceof RuntimeException r
          ? r
          : new IllegalStateException("The job of executeAndCollect failed: " + cause, cause);
    }
  }

  @Override
  public T next() {
    if (!hasNext()) {
      throw new NoSuchElementException(
          "The job of executeAndCollect has ended and every result was read; check hasNext()");
    }
    hasNext = false;
    T element = next;
    next = null;
    return element;
  }

  /** Cancels the job if it still runs and waits until it has stopped. */
  @Override
  public void close() throws InterruptedException {
    if (closed) {
      return;
    }
    closed = true;
    synchronized (lock) {
      // Take and drop whatever comes, so the sink never waits while the job is cancelled.
      discarding = true;
      visible.clear();
      uncommitted.clear();
      lock.notifyAll();
    }
    try {
      if (client != null && !client.getJobExecutionResult().isDone()) {
        client.cancel().get();
      }
    } catch (ExecutionException e) {
      // the job ended on its own meanwhile; nothing is left to stop
    } finally {
      closeQuietly(server);
      connections.forEach(CollectResultIterator::closeQuietly);
    }
  }

  private void accept() {
    while (!server.isClosed()) {
      try {
        Socket socket = server.accept();
        connections.add(socket);
        Thread reader =
            new Thread(() -> receive(socket), "weir-collect-receive-" + server.getLocalPort());
        reader.setDaemon(true);
        reader.start();
      } catch (IOException e) {
        return; // closed
      }
    }
  }

  /** Reads one connection of the sink until it ends or a newer one replaces it. */
  private void receive(Socket socket) {
    try (socket;
        DataInputStream in = new DataInputStream(new BufferedInputStream(socket.getInputStream()));
        DataOutputStream out =
            new DataOutputStream(new BufferedOutputStream(socket.getOutputStream()))) {
      if (in.readByte() != CollectSink.HELLO || !token.equals(in.readUTF())) {
        return; // not our sink
      }
      boolean checkpointing = in.readBoolean();
      long restored = in.readLong();
      long next = in.readLong();
      int mine;
      synchronized (lock) {
        if (generation == 0) {
          // The first attempt may be restored from a savepoint: count from where it starts.
          received = next;
          committed = next;
        }
        mine = ++generation;
        hello(checkpointing, restored);
      }
      long acknowledged = -1;
      while (true) {
        long ack;
        boolean full;
        synchronized (lock) {
          if (generation != mine) {
            return;
          }
          ack = received;
          full = !discarding && visible.size() >= CollectSink.CAPACITY;
        }
        if (ack != acknowledged
            && (full || in.available() == 0 || ack - acknowledged >= CollectSink.CAPACITY / 2)) {
          out.writeLong(ack);
          out.flush();
          acknowledged = ack;
        }
        if (full) {
          synchronized (lock) {
            while (!discarding && generation == mine && visible.size() >= CollectSink.CAPACITY) {
              lock.wait(); // the reader is behind: take no more elements, so the sink waits
            }
          }
          continue;
        }
        byte frame = in.readByte();
        byte[] bytes = null;
        long count = 0;
        switch (frame) {
          case CollectSink.ELEMENT -> {
            bytes = new byte[in.readInt()];
            in.readFully(bytes);
          }
          case CollectSink.COMMIT, CollectSink.END -> count = in.readLong();
          default -> throw new IOException("Unknown frame " + frame + " from the collect sink");
        }
        synchronized (lock) {
          if (generation != mine) {
            return;
          }
          if (frame == CollectSink.ELEMENT) {
            long number = next++;
            if (number > received) {
              throw new IllegalStateException(
                  "The collect sink sent result " + number + " before result " + received);
            }
            if (number == received) {
              received++;
              if (!discarding) {
                uncommitted.add(bytes);
                if (!checkpointing) {
                  committed = received;
                }
                settle();
              }
            }
          } else if (frame == CollectSink.COMMIT) {
            committed = Math.max(committed, count);
            settle();
          }
        }
      }
    } catch (EOFException e) {
      // the sink closed its connection: the job ended, or its attempt did
    } catch (IOException e) {
      // the sink's attempt failed, or this iterator was closed
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (RuntimeException e) {
      synchronized (lock) {
        failure = e;
        lock.notifyAll();
      }
    } finally {
      connections.remove(socket);
      synchronized (lock) {
        lock.notifyAll(); // a reader draining after the job's end waits for this close
      }
    }
  }

  /** A sink attempt connected: it counts from {@code restored}, or from 0 if -1. */
  private void hello(boolean checkpointing, long restored) {
    long from = Math.max(restored, 0);
    if (!checkpointing) {
      // The job starts over: what was not read yet comes again (what was read comes again too).
      visible.clear();
      uncommitted.clear();
      received = 0;
      committed = 0;
      return;
    }
    if (from < committed) {
      throw new IllegalStateException(
          "The job of executeAndCollect restarted from "
              + (restored < 0 ? "no checkpoint" : "a checkpoint with " + restored + " results")
              + ", but "
              + committed
              + " results were already final; the iterator cannot go back. Restart the job");
    }
    while (received > from) {
      uncommitted.pollLast();
      received--;
    }
    committed = from;
    settle();
  }

  /** Makes the received elements below {@link #committed} visible. */
  private void settle() {
    long firstUncommitted = received - uncommitted.size();
    while (!uncommitted.isEmpty() && firstUncommitted < committed) {
      visible.add(uncommitted.poll());
      firstUncommitted++;
    }
    lock.notifyAll();
  }

  private static void closeQuietly(AutoCloseable closeable) {
    try {
      closeable.close();
    } catch (Exception e) {
      // closing anyway
    }
  }
}

package io.weir.cluster;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.util.Arrays;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Supplier;

/**
 * One direction of a connection through {@link FaultyProxy}: a reader thread takes chunks off one
 * socket and a writer thread forwards them to the other, in order, each chunk held until its
 * direction's delay passed since it was read and written no faster than its bandwidth. The queue
 * between the two is bounded, so a slow direction backs up into the sender's socket as a slow
 * network does. It also drops what it reads when blackholed, and resets the connection in the
 * middle of a frame when asked to.
 */
final class ProxyPump {

  /** The delay and bandwidth of a direction; {@code bytesPerSecond} 0 is unlimited. */
  record Shape(long delayNanos, long bytesPerSecond) {
    static final Shape NONE = new Shape(0, 0);
  }

  /** What the pump asks of the connection it belongs to. */
  interface Link {
    /** Stopped silently: hold everything until the connection is closed. */
    boolean cut();

    /** Blocks until the connection is closed. */
    void awaitClosed() throws InterruptedException;

    /** Both ends get a TCP reset. */
    void reset();

    /** Closes both sockets (a failure or the end of both directions). */
    void close();

    /** This direction saw the end of its stream and passed it on. */
    void ended();
  }

  private static final int CHUNK = 16 * 1024;
  private static final int QUEUED_CHUNKS = 256;

  /** A chunk read and when it may be written; {@code bytes} null: the stream ended. */
  private record Chunk(byte[] bytes, long due) {}

  private final Socket from;
  private final Socket to;
  private final Supplier<Shape> shape;
  private final Link link;
  private final Runnable onHeld;
  private final Runnable onFrameCut;
  private final String name;
  private final BlockingQueue<Chunk> queue = new ArrayBlockingQueue<>(QUEUED_CHUNKS);
  private final FrameCutter frames = new FrameCutter();
  private Thread reader;
  private Thread writer;

  /** Everything read is dropped from now on; the connection stays open. */
  volatile boolean blackholed;

  /** Above 4: the connection is reset once this many bytes of the next frame longer went out. */
  volatile int resetInto;

  /** When the bandwidth lets the next byte go (System.nanoTime). Writer thread only. */
  private long nextFree;

  ProxyPump(
      Socket from,
      Socket to,
      Supplier<Shape> shape,
      Link link,
      Runnable onHeld,
      Runnable onFrameCut,
      String name) {
    this.from = from;
    this.to = to;
    this.shape = shape;
    this.link = link;
    this.onHeld = onHeld;
    this.onFrameCut = onFrameCut;
    this.name = name;
  }

  void start() {
    reader = daemon(this::read, name + "-read");
    writer = daemon(this::write, name + "-write");
  }

  /** Stops the threads; the sockets are closed by the link. */
  void stop() {
    if (reader != null) {
      reader.interrupt();
      writer.interrupt();
    }
  }

  private void read() {
    byte[] buffer = new byte[CHUNK];
    try {
      InputStream in = from.getInputStream();
      int n;
      while ((n = in.read(buffer)) >= 0) {
        if (link.cut()) {
          link.awaitClosed(); // half-open: hold both sockets open, forward nothing
          return;
        }
        if (!blackholed) {
          queue.put(
              new Chunk(Arrays.copyOf(buffer, n), System.nanoTime() + shape.get().delayNanos()));
        }
      }
      if (blackholed || link.cut()) {
        link.awaitClosed(); // the end of the stream is lost with its bytes
        return;
      }
      queue.put(new Chunk(null, System.nanoTime() + shape.get().delayNanos()));
    } catch (IOException e) {
      link.close(); // reset or closed: the other direction goes too
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private void write() {
    try {
      OutputStream out = to.getOutputStream();
      while (true) {
        Chunk chunk = queue.take();
        if (waitUntil(chunk.due())) {
          onHeld.run();
        }
        if (chunk.bytes() == null) {
          to.shutdownOutput();
          link.ended();
          return;
        }
        if (blackholed) {
          continue; // read before the blackhole, lost with it
        }
        int cut = frames.follow(chunk.bytes(), 0, chunk.bytes().length, resetInto);
        int end = cut >= 0 ? cut : chunk.bytes().length;
        writeThrottled(out, chunk.bytes(), end);
        if (cut >= 0) {
          out.flush();
          onFrameCut.run();
          link.reset();
          return;
        }
      }
    } catch (IOException e) {
      link.close();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** Writes {@code bytes[0, end)} in slices of a 50th of a second of the direction's bandwidth. */
  private void writeThrottled(OutputStream out, byte[] bytes, int end)
      throws IOException, InterruptedException {
    int off = 0;
    while (off < end) {
      long rate = shape.get().bytesPerSecond();
      int n = rate <= 0 ? end - off : (int) Math.min(end - off, Math.max(1, rate / 50));
      if (rate > 0) {
        if (waitUntil(nextFree)) {
          onHeld.run();
        }
        nextFree = Math.max(nextFree, System.nanoTime()) + n * 1_000_000_000L / rate;
      }
      out.write(bytes, off, n);
      off += n;
    }
  }

  /** Returns whether it had to wait. */
  private static boolean waitUntil(long nanoTime) throws InterruptedException {
    boolean waited = false;
    long wait;
    while ((wait = nanoTime - System.nanoTime()) > 0) {
      waited = true;
      LockSupport.parkNanos(wait);
      if (Thread.interrupted()) {
        throw new InterruptedException();
      }
    }
    return waited;
  }

  private static Thread daemon(Runnable body, String name) {
    Thread t = new Thread(body, name);
    t.setDaemon(true);
    t.start();
    return t;
  }
}

package io.weir.cluster;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketException;
import java.time.Duration;
import java.util.EnumMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Predicate;

/**
 * A TCP proxy on 127.0.0.1 that tests put between two processes to break their connections the ways
 * networks do. Every connection it accepts is forwarded to the target, byte for byte, in order
 * ({@link ProxyPump}), until the test
 *
 * <ul>
 *   <li>resets it: both ends get a TCP reset, as from a peer that crashed ({@link #resetAll});
 *   <li>resets it in the middle of a frame of the data plane, a given number of bytes into it
 *       ({@link #resetInFrame});
 *   <li>cuts it silently both ways: nothing arrives any more and nothing is closed, a half-open
 *       connection, as when a switch drops everything ({@link #cutAll});
 *   <li>blackholes one direction: the bytes that go that way are dropped, the other way still
 *       flows, and nothing is closed ({@link #blackhole});
 * </ul>
 *
 * or slows a direction down for every connection, open or to come: a delay added to every chunk,
 * and a bandwidth ({@link #shape}). Connections opened after a fault pass again.
 */
final class FaultyProxy implements AutoCloseable {

  /** Which way bytes go through the proxy. */
  enum Direction {
    /** From the process that connected to the one the proxy forwards to. */
    TO_TARGET,
    /** Back from the target to the process that connected. */
    FROM_TARGET
  }

  private final ServerSocket server;
  private final int targetPort;
  private final Set<Link> links = ConcurrentHashMap.newKeySet();
  private final Map<Direction, ProxyPump.Shape> shapes =
      new ConcurrentHashMap<>(
          Map.of(
              Direction.TO_TARGET,
              ProxyPump.Shape.NONE,
              Direction.FROM_TARGET,
              ProxyPump.Shape.NONE));
  private final AtomicLong accepted = new AtomicLong();
  private final AtomicLong heldChunks = new AtomicLong();
  private final AtomicInteger framesCut = new AtomicInteger();
  private volatile boolean closed;

  /** Listens on a free port of 127.0.0.1 and forwards to {@code targetPort} there. */
  FaultyProxy(int targetPort) throws IOException {
    this.targetPort = targetPort;
    this.server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
    Thread acceptor = new Thread(this::accept, "proxy-" + server.getLocalPort() + "-accept");
    acceptor.setDaemon(true);
    acceptor.start();
  }

  /** The port the proxy listens on. */
  int port() {
    return server.getLocalPort();
  }

  /** Connections accepted so far. */
  long accepted() {
    return accepted.get();
  }

  /** Connections open now with both directions flowing (neither cut nor blackholed). */
  int open() {
    return (int) links.stream().filter(Link::flowing).count();
  }

  /** Chunks (or slices of them) held back for their direction's delay or bandwidth so far. */
  long heldChunks() {
    return heldChunks.get();
  }

  /** Connections reset in the middle of a frame so far ({@link #resetInFrame}). */
  int framesCut() {
    return framesCut.get();
  }

  /**
   * Every chunk going {@code direction} waits {@code delay} after it was read, and the direction
   * carries at most {@code bytesPerSecond} (0: no limit), on the connections open now and those to
   * come, until shaped again.
   */
  void shape(Direction direction, Duration delay, long bytesPerSecond) {
    shapes.put(direction, new ProxyPump.Shape(delay.toNanos(), bytesPerSecond));
  }

  /** Resets every open connection at both ends; returns how many there were. */
  int resetAll() {
    return forEachFlowing(
        link -> {
          link.reset();
          return true;
        });
  }

  /**
   * Stops every open connection both ways without closing it: the bytes in flight and all that
   * follow are lost, and no end learns of it from the socket. Returns how many there were.
   */
  int cutAll() {
    return forEachFlowing(
        link -> {
          link.cut = true;
          return true;
        });
  }

  /**
   * Drops every byte that goes {@code direction} on the connections open now, silently: the other
   * direction still flows and no end learns of it from the socket (the end of the stream is lost
   * too). Returns how many connections there were.
   */
  int blackhole(Direction direction) {
    return forEachFlowing(
        link -> {
          link.pump(direction).blackholed = true;
          return true;
        });
  }

  /**
   * Arms every open connection to reset at both ends once {@code bytesIntoFrame} bytes (more than
   * the 4 of the length) of the next data-plane frame longer than that went {@code direction}: the
   * receiver has read part of a frame when the connection breaks. Returns how many were armed;
   * {@link #framesCut} counts those reset.
   */
  int resetInFrame(Direction direction, int bytesIntoFrame) {
    if (bytesIntoFrame <= 4) {
      throw new IllegalArgumentException("a frame's first 4 bytes are its length: cut after more");
    }
    return forEachFlowing(
        link -> {
          link.pump(direction).resetInto = bytesIntoFrame;
          return true;
        });
  }

  private int forEachFlowing(Predicate<Link> fault) {
    int n = 0;
    for (Link link : links) {
      if (link.flowing() && fault.test(link)) {
        n++;
      }
    }
    return n;
  }

  private void accept() {
    while (!closed) {
      Socket client;
      try {
        client = server.accept();
      } catch (IOException e) {
        return; // closed
      }
      accepted.incrementAndGet();
      try {
        Socket upstream = new Socket();
        upstream.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), targetPort));
        client.setTcpNoDelay(true);
        upstream.setTcpNoDelay(true);
        Link link = new Link(client, upstream);
        links.add(link);
        link.start();
      } catch (IOException e) {
        closeQuietly(client);
      }
    }
  }

  @Override
  public void close() {
    closed = true;
    closeQuietly(server);
    for (Link link : links) {
      link.close();
    }
  }

  private static void closeQuietly(java.io.Closeable c) {
    try {
      c.close();
    } catch (IOException ignored) {
      // closing anyway
    }
  }

  /** One proxied connection: a pump each way. */
  private final class Link implements ProxyPump.Link {
    private final Socket client;
    private final Socket upstream;
    private final Map<Direction, ProxyPump> pumps = new EnumMap<>(Direction.class);
    private final CountDownLatch closedLatch = new CountDownLatch(1);
    private final AtomicInteger ended = new AtomicInteger();
    volatile boolean cut;

    Link(Socket client, Socket upstream) {
      this.client = client;
      this.upstream = upstream;
      String name = "proxy-" + port() + "-";
      pumps.put(Direction.TO_TARGET, pump(client, upstream, Direction.TO_TARGET, name + "up"));
      pumps.put(
          Direction.FROM_TARGET, pump(upstream, client, Direction.FROM_TARGET, name + "down"));
    }

    private ProxyPump pump(Socket from, Socket to, Direction direction, String name) {
      return new ProxyPump(
          from,
          to,
          () -> shapes.get(direction),
          this,
          heldChunks::incrementAndGet,
          framesCut::incrementAndGet,
          name);
    }

    void start() {
      pumps.values().forEach(ProxyPump::start);
    }

    ProxyPump pump(Direction direction) {
      return pumps.get(direction);
    }

    boolean flowing() {
      return !cut && pumps.values().stream().noneMatch(p -> p.blackholed);
    }

    @Override
    public boolean cut() {
      return cut;
    }

    @Override
    public void awaitClosed() throws InterruptedException {
      closedLatch.await();
    }

    @Override
    public void ended() {
      if (ended.incrementAndGet() == 2) {
        close();
      }
    }

    /** Both ends get a TCP reset: SO_LINGER 0 and close. */
    @Override
    public void reset() {
      for (Socket s : new Socket[] {client, upstream}) {
        try {
          s.setSoLinger(true, 0);
        } catch (SocketException ignored) {
          // already closed
        }
      }
      close();
    }

    @Override
    public void close() {
      links.remove(this);
      closeQuietly(client);
      closeQuietly(upstream);
      closedLatch.countDown();
      pumps.values().forEach(ProxyPump::stop);
    }
  }
}

package io.weir.cluster;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketException;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A TCP proxy on 127.0.0.1 that tests put between two processes to break their connections the ways
 * networks do: every connection it accepts is forwarded to the target, byte for byte, until the
 * test resets it (both ends get a TCP reset, as from a peer that crashed in the middle of a frame)
 * or cuts it silently (nothing arrives any more and nothing is closed: a half-open connection, as
 * when a switch drops everything). Connections opened after a fault pass again.
 */
final class FaultyProxy implements AutoCloseable {

  private final ServerSocket server;
  private final int targetPort;
  private final Set<Link> links = ConcurrentHashMap.newKeySet();
  private final AtomicLong accepted = new AtomicLong();
  private final Thread acceptor;
  private volatile boolean closed;

  /** Listens on a free port of 127.0.0.1 and forwards to {@code targetPort} there. */
  FaultyProxy(int targetPort) throws IOException {
    this.targetPort = targetPort;
    this.server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
    this.acceptor = new Thread(this::accept, "proxy-" + server.getLocalPort() + "-accept");
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

  /** Connections open now and not cut. */
  int open() {
    return (int) links.stream().filter(l -> !l.cut).count();
  }

  /** Resets every open connection at both ends; returns how many there were. */
  int resetAll() {
    int n = 0;
    for (Link link : links) {
      link.reset();
      n++;
    }
    return n;
  }

  /**
   * Stops every open connection both ways without closing it: the bytes in flight and all that
   * follow are lost, and no end learns of it from the socket. Returns how many there were.
   */
  int cutAll() {
    int n = 0;
    for (Link link : links) {
      if (!link.cut) {
        link.cut = true;
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
  private final class Link {
    private final Socket client;
    private final Socket upstream;
    private final CountDownLatch closedLatch = new CountDownLatch(1);
    volatile boolean cut;

    Link(Socket client, Socket upstream) {
      this.client = client;
      this.upstream = upstream;
    }

    void start() {
      pump(client, upstream, "up");
      pump(upstream, client, "down");
    }

    private void pump(Socket from, Socket to, String direction) {
      Thread t =
          new Thread(
              () -> {
                byte[] buffer = new byte[16 * 1024];
                try (InputStream in = from.getInputStream();
                    OutputStream out = to.getOutputStream()) {
                  int n;
                  while ((n = in.read(buffer)) >= 0) {
                    if (cut) {
                      // Half-open: hold both sockets open, forward nothing, until the test ends.
                      closedLatch.await();
                      return;
                    }
                    out.write(buffer, 0, n);
                  }
                  to.shutdownOutput();
                } catch (SocketException e) {
                  // reset or closed: the other pump sees it too
                } catch (IOException | InterruptedException e) {
                  // the link goes
                } finally {
                  if (!cut) {
                    links.remove(this);
                  }
                }
              },
              "proxy-" + port() + "-" + direction);
      t.setDaemon(true);
      t.start();
    }

    /** Both ends get a TCP reset: SO_LINGER 0 and close. */
    void reset() {
      links.remove(this);
      for (Socket s : new Socket[] {client, upstream}) {
        try {
          s.setSoLinger(true, 0);
        } catch (SocketException ignored) {
          // already closed
        }
        closeQuietly(s);
      }
      closedLatch.countDown();
    }

    void close() {
      closeQuietly(client);
      closeQuietly(upstream);
      closedLatch.countDown();
    }
  }
}

package io.weir.cluster.ha;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A TCP proxy between ZooKeeper clients and a real server that forwards ZooKeeper's frames whole
 * and can break the network the way it breaks in production: cut every connection, refuse new ones,
 * or drop the reply to the next request of one kind and close the connection (the request reached
 * the server and was applied; the client never hears so). No ZooKeeper code is replaced.
 */
public final class ZooKeeperProxy implements AutoCloseable {

  private final ServerSocket listener;
  private final int serverPort;
  private final List<Link> links = new CopyOnWriteArrayList<>();
  private final AtomicBoolean refusing = new AtomicBoolean();
  private final AtomicInteger dropReplyToOpCode = new AtomicInteger(Integer.MIN_VALUE);
  private final AtomicInteger droppedReplies = new AtomicInteger();
  private final AtomicBoolean refuseAfterDrop = new AtomicBoolean();
  private final Thread acceptor;

  public ZooKeeperProxy(int serverPort) throws IOException {
    this.serverPort = serverPort;
    this.listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
    this.acceptor = new Thread(this::accept, "zookeeper-proxy");
    acceptor.setDaemon(true);
    acceptor.start();
  }

  /** Where clients connect: {@code 127.0.0.1:port}. */
  public String connectString() {
    return "127.0.0.1:" + listener.getLocalPort();
  }

  /** Closes every connection; with {@code refuse}, new ones are closed as they come too. */
  void cut(boolean refuse) {
    refusing.set(refuse);
    links.forEach(Link::close);
  }

  /** Lets connections through again. */
  void heal() {
    refusing.set(false);
  }

  /**
   * The next request with ZooKeeper op code {@code opCode} (from any client) reaches the server,
   * but its reply is dropped and its connection closed.
   */
  void dropNextReplyTo(int opCode) {
    dropNextReplyTo(opCode, false);
  }

  /**
   * As {@link #dropNextReplyTo(int)}; with {@code thenRefuse}, no connection gets through after.
   */
  public void dropNextReplyTo(int opCode, boolean thenRefuse) {
    refuseAfterDrop.set(thenRefuse);
    dropReplyToOpCode.set(opCode);
  }

  /** How many replies were dropped. */
  public int droppedReplies() {
    return droppedReplies.get();
  }

  @Override
  public void close() throws IOException {
    listener.close();
    links.forEach(Link::close);
  }

  private void accept() {
    while (!listener.isClosed()) {
      try {
        Socket client = listener.accept();
        if (refusing.get()) {
          client.close();
          continue;
        }
        Socket server = new Socket(InetAddress.getLoopbackAddress(), serverPort);
        // ZooKeeper's own sockets send each frame at once; so must the proxy's.
        client.setTcpNoDelay(true);
        server.setTcpNoDelay(true);
        Link link = new Link(client, server);
        links.add(link);
        link.start();
      } catch (IOException e) {
        // closed, or the server refused: the client sees a lost connection and tries again
      }
    }
  }

  /** One client's connection: two pumps of whole frames. */
  private final class Link {
    private final Socket client;
    private final Socket server;
    private final AtomicInteger awaitedXid = new AtomicInteger(Integer.MIN_VALUE);

    Link(Socket client, Socket server) {
      this.client = client;
      this.server = server;
    }

    void start() {
      Thread up = new Thread(this::requests, "zookeeper-proxy-up");
      Thread down = new Thread(this::replies, "zookeeper-proxy-down");
      up.setDaemon(true);
      down.setDaemon(true);
      up.start();
      down.start();
    }

    /** Client to server; the first frame is the connect request, then {xid, type, ...}. */
    private void requests() {
      try (DataInputStream in = new DataInputStream(client.getInputStream());
          DataOutputStream out = new DataOutputStream(server.getOutputStream())) {
        boolean first = true;
        while (true) {
          byte[] frame = readFrame(in);
          if (!first && frame.length >= 8) {
            ByteBuffer header = ByteBuffer.wrap(frame);
            int xid = header.getInt();
            int type = header.getInt();
            if (dropReplyToOpCode.compareAndSet(type, Integer.MIN_VALUE)) {
              awaitedXid.set(xid);
            }
          }
          first = false;
          writeFrame(out, frame);
        }
      } catch (IOException e) {
        close();
      }
    }

    /** Server to client; the first frame is the connect response, then {xid, zxid, err, ...}. */
    private void replies() {
      try (DataInputStream in = new DataInputStream(server.getInputStream());
          DataOutputStream out = new DataOutputStream(client.getOutputStream())) {
        boolean first = true;
        while (true) {
          byte[] frame = readFrame(in);
          if (!first && frame.length >= 4) {
            int xid = ByteBuffer.wrap(frame).getInt();
            if (xid == awaitedXid.get()) {
              if (refuseAfterDrop.get()) {
                refusing.set(true);
              }
              droppedReplies.incrementAndGet();
              close();
              return;
            }
          }
          first = false;
          writeFrame(out, frame);
        }
      } catch (IOException e) {
        close();
      }
    }

    void close() {
      links.remove(this);
      try {
        client.close();
      } catch (IOException e) {
        // closing anyway
      }
      try {
        server.close();
      } catch (IOException e) {
        // closing anyway
      }
    }
  }

  private static byte[] readFrame(DataInputStream in) throws IOException {
    int length = in.readInt();
    byte[] frame = new byte[length];
    in.readFully(frame);
    return frame;
  }

  private static void writeFrame(DataOutputStream out, byte[] frame) throws IOException {
    out.writeInt(frame.length);
    out.write(frame);
    out.flush();
  }
}

package io.weir.cluster.data;

import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.weir.runtime.network.ChannelId;
import io.weir.runtime.network.InputChannel;
import io.weir.runtime.network.ResultSubpartition;
import io.weir.runtime.task.Waker;
import io.weir.runtime.taskexecutor.DataPlane;
import java.io.IOException;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A TaskManager's data plane on Netty: a {@link DataPlaneServer} that producers' ends of channels
 * stream from, and a {@link DataPlaneClient} with one connection per producing TaskManager that all
 * input channels fed from there share, both on one group of event loops. Buffers and events are
 * those of local channels (see {@link Frames}); flow control is the consumer's credits, so
 * backpressure crosses the network as it does within a process.
 */
public final class NettyDataPlane implements DataPlane, AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(NettyDataPlane.class);

  private final String address;
  private final DataTransport transport;
  private final EventLoopGroup group;
  private final DataPlaneServer server;
  private final DataPlaneClient client;
  private final int advertisedPort;

  /**
   * Opens the data port on {@code bindHost:port} (0: any free port), advertised as {@code
   * advertisedHost}.
   */
  public NettyDataPlane(String bindHost, int port, String advertisedHost, String secret)
      throws IOException {
    this(bindHost, port, advertisedHost, secret, DataTransport.auto(), 1);
  }

  /**
   * As above, on the given socket transport, with {@code threads} event loops serving the server's
   * and the client's connections alike.
   */
  public NettyDataPlane(
      String bindHost,
      int port,
      String advertisedHost,
      String secret,
      DataTransport transport,
      int threads)
      throws IOException {
    this(bindHost, port, advertisedHost, 0, secret, transport, threads);
  }

  /**
   * As above, advertised at {@code advertisedPort} instead of the port bound (0: the port bound):
   * for a TaskManager that others reach through a forwarded port (NAT, a proxy), as Flink's {@code
   * taskmanager.data.port} with {@code taskmanager.data.bind-port}.
   */
  public NettyDataPlane(
      String bindHost,
      int port,
      String advertisedHost,
      int advertisedPort,
      String secret,
      DataTransport transport,
      int threads)
      throws IOException {
    this(
        bindHost,
        port,
        advertisedHost,
        advertisedPort,
        secret,
        transport,
        threads,
        ConnectionLiveness.DEFAULT);
  }

  /** As above, its connections pinged as {@code liveness} says. */
  public NettyDataPlane(
      String bindHost,
      int port,
      String advertisedHost,
      int advertisedPort,
      String secret,
      DataTransport transport,
      int threads,
      ConnectionLiveness liveness)
      throws IOException {
    this.transport = transport;
    this.group = new MultiThreadIoEventLoopGroup(threads, transport.ioHandlerFactory());
    try {
      this.server = new DataPlaneServer(group, transport, bindHost, port, secret);
    } catch (IOException e) {
      group.shutdownGracefully();
      throw e;
    }
    this.client = new DataPlaneClient(group, transport, secret, liveness);
    int bound = server.port();
    this.advertisedPort = advertisedPort > 0 ? advertisedPort : bound;
    this.address = advertisedHost + ":" + this.advertisedPort;
    LOG.info(
        "Data plane listening on {}:{}{} ({}, {} event loop{})",
        bindHost,
        bound,
        advertisedPort > 0 ? ", reached at " + address : "",
        transport,
        threads,
        threads == 1 ? "" : "s");
  }

  @Override
  public String address() {
    return address;
  }

  /** The socket transport this plane runs on. */
  public DataTransport transport() {
    return transport;
  }

  public int port() {
    return server.port();
  }

  /** The address the data port is bound to (its host {@code taskmanager.bind-host}). */
  public java.net.InetSocketAddress boundAddress() {
    return server.address();
  }

  /** The port other TaskManagers reach this data plane at: the port bound, or the one forwarded. */
  public int advertisedPort() {
    return advertisedPort;
  }

  @Override
  public ResultSubpartition createSubpartition(
      ChannelId id, String consumerAddress, Waker producerWaker) {
    return server.createSubpartition(id, producerWaker);
  }

  @Override
  public void connectInputChannel(ChannelId id, String producerAddress, InputChannel channel) {
    client.connectInputChannel(id, producerAddress, channel);
  }

  @Override
  public void subtaskEnded(String jobId, int attempt, int vertex, int subtask) {
    client.subtaskEnded(jobId, attempt, vertex, subtask);
  }

  @Override
  public void close() {
    server.close();
    client.close();
    group.shutdownGracefully(0, 2, TimeUnit.SECONDS).syncUninterruptibly();
  }
}

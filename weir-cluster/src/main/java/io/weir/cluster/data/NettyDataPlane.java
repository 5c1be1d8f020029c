package io.weir.cluster.data;

import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoop;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.util.concurrent.AbstractEventExecutor;
import io.weir.cluster.rpc.Secrets;
import io.weir.runtime.network.ChannelEvent;
import io.weir.runtime.network.ChannelId;
import io.weir.runtime.network.CreditDepth;
import io.weir.runtime.network.InputChannel;
import io.weir.runtime.network.ResultSubpartition;
import io.weir.runtime.task.Waker;
import io.weir.runtime.taskexecutor.DataPlane;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A TaskManager's data plane on Netty: a server that producers' ends of channels stream from, and
 * one client connection per producing TaskManager that all input channels fed from there share
 * (many channels multiplexed by stream number). Buffers and events are those of local channels (see
 * {@link Frames}); flow control is the consumer's credits, so backpressure crosses the network as
 * it does within a process.
 *
 * <p>A consumer asks for a channel by its {@link ChannelId}; a request that arrives before the
 * producer's task was deployed here waits for it. With a cluster secret set, a connection must
 * present it in its first frame; a peer that does not, or that sends garbage, is logged and
 * disconnected, and the process goes on.
 */
public final class NettyDataPlane implements DataPlane, AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(NettyDataPlane.class);

  private final String secret;
  private final String address;
  private final DataTransport transport;
  private final EventLoopGroup group;
  private final Channel serverChannel;

  /** Producer ends registered here and not yet released. */
  private final Map<ChannelId, RemoteSubpartition> subpartitions = new HashMap<>();

  /** Consumers' requests for channels whose producer is not deployed yet. */
  private final Map<ChannelId, Request> waitingRequests = new HashMap<>();

  /** Client connections to producing TaskManagers, by data address. */
  private final Map<String, Connection> connections = new ConcurrentHashMap<>();

  private record Request(Channel connection, int stream, int credits) {}

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
    this.secret = secret;
    this.transport = transport;
    this.group = new MultiThreadIoEventLoopGroup(threads, transport.ioHandlerFactory());
    try {
      this.serverChannel =
          new ServerBootstrap()
              .group(group)
              .channel(transport.serverChannel())
              .childOption(ChannelOption.TCP_NODELAY, true)
              .childHandler(
                  new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                      ch.pipeline().addLast(new FrameDecoder(null)).addLast(new ServerHandler());
                    }
                  })
              .bind(new InetSocketAddress(bindHost, port))
              .sync()
              .channel();
    } catch (Exception e) {
      group.shutdownGracefully();
      throw new IOException(
          "Cannot open the data port on " + bindHost + ":" + port + " (" + e.getMessage() + ")", e);
    }
    int bound = ((InetSocketAddress) serverChannel.localAddress()).getPort();
    this.address = advertisedHost + ":" + bound;
    LOG.info(
        "Data plane listening on {}:{} ({}, {} event loop{})",
        bindHost,
        bound,
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
    return ((InetSocketAddress) serverChannel.localAddress()).getPort();
  }

  // ------------------------------------------------------------------ producer side

  @Override
  public ResultSubpartition createSubpartition(
      ChannelId id, String consumerAddress, Waker producerWaker) {
    RemoteSubpartition sp = new RemoteSubpartition(id, producerWaker, this::releasedProducer);
    Request waiting;
    synchronized (this) {
      subpartitions.put(id, sp);
      waiting = waitingRequests.remove(id);
    }
    if (waiting != null) {
      attach(sp, waiting);
    }
    return sp;
  }

  private void attach(RemoteSubpartition sp, Request request) {
    ServerHandler handler = request.connection().pipeline().get(ServerHandler.class);
    if (handler != null) {
      handler.streams.put(request.stream(), sp);
    }
    sp.attach(request.connection(), request.stream(), request.credits());
  }

  private synchronized void releasedProducer(RemoteSubpartition sp) {
    subpartitions.remove(sp.id(), sp);
  }

  /** The server side of one consumer's connection. */
  private final class ServerHandler extends SimpleChannelInboundHandler<ByteBuf> {
    private boolean greeted;
    final Map<Integer, RemoteSubpartition> streams = new ConcurrentHashMap<>();

    @Override
    protected void channelRead0(ChannelHandlerContext ctx, ByteBuf frame) {
      byte type = frame.readByte();
      if (!greeted) {
        greet(ctx, type, frame);
        return;
      }
      switch (type) {
        case Frames.REQUEST -> {
          int stream = frame.readInt();
          ChannelId id = ChannelId.parse(Frames.readString(frame, 1024));
          int credits = frame.readInt();
          Request request = new Request(ctx.channel(), stream, credits);
          RemoteSubpartition sp;
          synchronized (NettyDataPlane.this) {
            sp = subpartitions.get(id);
            if (sp == null) {
              waitingRequests.put(id, request);
            }
          }
          if (sp != null) {
            attach(sp, request);
          }
        }
        case Frames.CREDIT -> {
          RemoteSubpartition sp = streams.get(frame.readInt());
          int n = frame.readInt();
          if (sp != null) {
            sp.credit(n);
          }
        }
        case Frames.DEPTH -> {
          RemoteSubpartition sp = streams.get(frame.readInt());
          int delta = frame.readInt();
          if (sp != null) {
            sp.depthChanged(delta);
          }
        }
        case Frames.DELIVERED -> {
          RemoteSubpartition sp = streams.get(frame.readInt());
          long checkpoint = frame.readLong();
          if (sp != null) {
            sp.delivered(checkpoint);
          }
        }
        case Frames.CONVERTED -> {
          RemoteSubpartition sp = streams.get(frame.readInt());
          long checkpoint = frame.readLong();
          if (sp != null) {
            sp.converted(checkpoint);
          }
        }
        case Frames.RELEASE -> {
          RemoteSubpartition sp = streams.remove(frame.readInt());
          if (sp != null) {
            sp.detach();
          }
        }
        default -> throw new IllegalArgumentException("unknown frame type " + type);
      }
    }

    private void greet(ChannelHandlerContext ctx, byte type, ByteBuf frame) {
      if (type != Frames.HELLO || frame.readableBytes() < 12 || frame.readInt() != Frames.MAGIC) {
        refuse(ctx, "it did not open with Weir's data-plane greeting");
        return;
      }
      // The secret first: a peer without it learns nothing, not even the version spoken here.
      int version = frame.readInt();
      String presented = Frames.readString(frame, 4096);
      if (!Secrets.matches(secret, presented.isEmpty() ? null : presented)) {
        refuse(ctx, "it did not present the cluster's secret (security.cluster.secret)");
        return;
      }
      if (version != Frames.VERSION) {
        refuse(
            ctx,
            "it speaks data-plane version "
                + version
                + ", not "
                + Frames.VERSION
                + "; run the same Weir version on every TaskManager");
        return;
      }
      greeted = true;
    }

    private void refuse(ChannelHandlerContext ctx, String why) {
      LOG.warn("Refused a data connection from {}: {}", ctx.channel().remoteAddress(), why);
      ctx.close();
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
      for (RemoteSubpartition sp : streams.values()) {
        sp.detach();
      }
      streams.clear();
      synchronized (NettyDataPlane.this) {
        waitingRequests.values().removeIf(r -> r.connection() == ctx.channel());
      }
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
      LOG.warn(
          "Closing the data connection from {}: {}",
          ctx.channel().remoteAddress(),
          cause.toString());
      ctx.close();
    }
  }

  // ------------------------------------------------------------------ consumer side

  @Override
  public void connectInputChannel(ChannelId id, String producerAddress, InputChannel channel) {
    Connection connection;
    try {
      connection = connection(producerAddress);
    } catch (IOException e) {
      channel.fail(e);
      return;
    }
    connection.request(id, channel);
  }

  private Connection connection(String producerAddress) throws IOException {
    Connection existing = connections.get(producerAddress);
    if (existing != null && existing.channel.isActive()) {
      return existing;
    }
    synchronized (connections) {
      existing = connections.get(producerAddress);
      if (existing != null && existing.channel.isActive()) {
        return existing;
      }
      Connection created = connect(producerAddress);
      connections.put(producerAddress, created);
      return created;
    }
  }

  private Connection connect(String producerAddress) throws IOException {
    int colon = producerAddress.lastIndexOf(':');
    String host = producerAddress.substring(0, colon);
    int port = Integer.parseInt(producerAddress.substring(colon + 1));
    Connection connection = new Connection(producerAddress);
    try {
      Channel ch =
          new Bootstrap()
              .group(group)
              .channel(transport.socketChannel())
              .option(ChannelOption.TCP_NODELAY, true)
              .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, 10_000)
              .handler(
                  new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                      ch.pipeline()
                          .addLast(new FrameDecoder(connection::receiver))
                          .addLast(connection.handler);
                    }
                  })
              .connect(host, port)
              .sync()
              .channel();
      connection.channel = ch;
      ch.writeAndFlush(Frames.hello(ch.alloc(), secret));
      return connection;
    } catch (Exception e) {
      throw new IOException(
          "Cannot open a data connection to the TaskManager at "
              + producerAddress
              + " ("
              + e.getMessage()
              + ")",
          e);
    }
  }

  @Override
  public void subtaskEnded(String jobId, int attempt, int vertex, int subtask) {
    for (Connection connection : connections.values()) {
      connection.releaseConsumer(jobId, attempt, vertex, subtask);
    }
  }

  /** One connection to a producing TaskManager, shared by every input channel fed from there. */
  private final class Connection {
    final String address;
    volatile Channel channel;
    final AtomicInteger nextStream = new AtomicInteger();
    final Map<Integer, Input> inputs = new ConcurrentHashMap<>();
    final ClientHandler handler = new ClientHandler(this);

    private final AtomicBoolean announceScheduled = new AtomicBoolean();
    private final Runnable announce = this::announceCredits;

    Connection(String address) {
      this.address = address;
    }

    void request(ChannelId id, InputChannel channel) {
      int stream = nextStream.incrementAndGet();
      Input input = new Input(this, stream, id, channel);
      inputs.put(stream, input);
      channel.setUpstream(input);
      Channel ch = this.channel;
      ch.writeAndFlush(
          Frames.request(ch.alloc(), stream, id.asText(), channel.getGate().creditsPerChannel()));
      if (!ch.isActive()) {
        inputs.remove(stream);
        channel.fail(new IOException("The data connection to " + address + " closed"));
      }
    }

    void releaseConsumer(String jobId, int attempt, int vertex, int subtask) {
      List<Input> ended = new ArrayList<>();
      for (Input input : inputs.values()) {
        ChannelId id = input.id;
        if (id.jobId().equals(jobId)
            && id.attempt() == attempt
            && id.consumerVertex() == vertex
            && id.consumerSubtask() == subtask) {
          ended.add(input);
        }
      }
      Channel ch = channel;
      for (Input input : ended) {
        inputs.remove(input.stream);
        if (ch.isActive()) {
          ch.writeAndFlush(Frames.release(ch.alloc(), input.stream));
        }
      }
    }

    void send(ByteBuf frame) {
      channel.writeAndFlush(frame);
    }

    /**
     * An input of this connection has credits to announce. They go out when this connection's event
     * loop next runs its tasks: at once if {@code urgent}, otherwise after the loop's next wake-up
     * for anything else, which under load is the next buffer arriving on this connection. So a busy
     * consumer's credits ride on wake-ups the loop has anyway, several in one frame, instead of
     * costing the loop a wake-up and a write each.
     */
    void announceLater(boolean urgent) {
      EventLoop loop = channel.eventLoop();
      if (urgent) {
        loop.execute(announce);
      } else if (announceScheduled.compareAndSet(false, true)) {
        if (loop instanceof AbstractEventExecutor lazy) {
          lazy.lazyExecute(announce);
        } else {
          loop.execute(announce);
        }
      }
    }

    /**
     * Writes one CREDIT frame per input with credits due, then flushes. Event loop. It reads the
     * count of every input of the connection (one per channel read from that TaskManager), which
     * keeps the consumer's side to one atomic increment: a queue of the inputs due would put a
     * concurrent queue's rarely taken branches into the consumer task's compiled loop, and the
     * first time each is taken the loop is recompiled (as {@code BufferPool}'s queue does on W8).
     */
    private void announceCredits() {
      announceScheduled.set(false);
      Channel ch = channel;
      boolean wrote = false;
      for (Input input : inputs.values()) {
        if (input.unannounced.get() > 0) {
          int n = input.unannounced.getAndSet(0);
          if (ch.isActive()) {
            ch.write(Frames.streamInt(ch.alloc(), Frames.CREDIT, input.stream, n));
            wrote = true;
          }
        }
      }
      if (wrote) {
        ch.flush();
      }
    }

    /** The input channel fed by {@code stream}, null once it was released. */
    InputChannel receiver(int stream) {
      Input input = inputs.get(stream);
      return input == null ? null : input.channel;
    }
  }

  /** The consumer's end of one remote channel: the credits and deliveries it hands back. */
  private static final class Input implements InputChannel.Upstream {
    final Connection connection;
    final int stream;
    final ChannelId id;
    final InputChannel channel;

    /**
     * Credits given back by the consumer and not announced yet: once they reach half of the
     * channel's depth ({@link CreditDepth#announceAt}), the producer may be about to wait for them,
     * and they go out at once.
     */
    final AtomicInteger unannounced = new AtomicInteger();

    Input(Connection connection, int stream, ChannelId id, InputChannel channel) {
      this.connection = connection;
      this.stream = stream;
      this.id = id;
      this.channel = channel;
    }

    private int announceAt() {
      return CreditDepth.announceAt(channel.creditDepth());
    }

    /**
     * One more credit. Announced lazily while fewer than half of the channel's credits are due: the
     * producer then still holds some, or buffers are on their way or queued here, so the consumer's
     * loop wakes again. At once when half are due: a producer without credit and a consumer without
     * buffers would otherwise wait for each other.
     */
    @Override
    public void bufferConsumed() {
      connection.announceLater(unannounced.incrementAndGet() >= announceAt());
    }

    /**
     * Tells the producer at once. Credits still due go out at once too if they have become half of
     * a smaller depth: a depth shrinks at most by half at a time ({@link CreditDepth}), so the
     * credits due stay fewer than the depth and the producer holds one or has buffers on their way,
     * as with a fixed depth.
     */
    @Override
    public void depthChanged(int delta) {
      Channel ch = connection.channel;
      connection.send(Frames.streamInt(ch.alloc(), Frames.DEPTH, stream, delta));
      if (unannounced.get() >= announceAt()) {
        connection.announceLater(true);
      }
    }

    @Override
    public void barrierDelivered(long checkpointId) {
      Channel ch = connection.channel;
      connection.send(Frames.streamLong(ch.alloc(), Frames.DELIVERED, stream, checkpointId));
    }
  }

  /** What a producing TaskManager sends on one connection, but buffers (see FrameDecoder). */
  private final class ClientHandler extends SimpleChannelInboundHandler<ByteBuf> {
    private final Connection connection;

    ClientHandler(Connection connection) {
      this.connection = connection;
    }

    @Override
    protected void channelRead0(ChannelHandlerContext ctx, ByteBuf frame) {
      byte type = frame.readByte();
      Input input = connection.inputs.get(frame.readInt());
      switch (type) {
        case Frames.EVENT -> {
          byte kind = frame.readByte();
          ChannelEvent event = Frames.readEvent(frame);
          if (input == null) {
            return;
          }
          if (kind == Frames.CONVERTIBLE && event instanceof ChannelEvent.CheckpointBarrier b) {
            input.channel.addConvertibleBarrier(b);
          } else if (kind == Frames.PRIORITY && event instanceof ChannelEvent.CheckpointBarrier b) {
            input.channel.receivePriorityBarrier(b);
          } else {
            input.channel.addEvent(event);
          }
        }
        case Frames.CONVERT -> {
          long checkpoint = frame.readLong();
          if (input != null && input.channel.convertKeepingOvertaken(checkpoint)) {
            ctx.writeAndFlush(
                Frames.streamLong(ctx.alloc(), Frames.CONVERTED, input.stream, checkpoint));
          }
        }
        default -> throw new IllegalArgumentException("unknown frame type " + type);
      }
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
      connections.remove(connection.address, connection);
      IOException lost =
          new IOException(
              "The data connection to the TaskManager at " + connection.address + " was lost");
      for (Input input : connection.inputs.values()) {
        input.channel.fail(lost);
      }
      connection.inputs.clear();
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
      LOG.warn("Closing the data connection to {}: {}", connection.address, cause.toString());
      ctx.close();
    }
  }

  @Override
  public void close() {
    serverChannel.close().syncUninterruptibly();
    for (Connection c : connections.values()) {
      if (c.channel != null) {
        c.channel.close();
      }
    }
    group.shutdownGracefully(0, 2, java.util.concurrent.TimeUnit.SECONDS).syncUninterruptibly();
  }
}

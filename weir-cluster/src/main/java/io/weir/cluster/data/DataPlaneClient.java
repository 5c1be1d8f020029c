package io.weir.cluster.data;

import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoop;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.util.concurrent.AbstractEventExecutor;
import io.netty.util.concurrent.ScheduledFuture;
import io.weir.runtime.network.ChannelEvent;
import io.weir.runtime.network.ChannelId;
import io.weir.runtime.network.CreditDepth;
import io.weir.runtime.network.InputChannel;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The client side of a TaskManager's data plane: one connection per producing TaskManager, shared
 * by every input channel fed from there (many channels multiplexed by stream number), carrying the
 * consumer's credits, depth changes and barrier deliveries back to the producers. Its connections
 * run on the data plane's event loops. A connection closes when the last channel it feeds is
 * released (as Flink's partition request clients are reference-counted): a connection that went
 * silent without closing (half-open) then ends with the job attempt that found it dead (by its
 * checkpoint timeout), instead of serving every attempt after it.
 */
final class DataPlaneClient {

  private static final Logger LOG = LoggerFactory.getLogger(DataPlaneClient.class);

  private final EventLoopGroup group;
  private final DataTransport transport;
  private final String secret;

  /** Connections to producing TaskManagers, by data address. */
  private final Map<String, Connection> connections = new ConcurrentHashMap<>();

  private final ConnectionLiveness liveness;

  DataPlaneClient(
      EventLoopGroup group, DataTransport transport, String secret, ConnectionLiveness liveness) {
    this.group = group;
    this.transport = transport;
    this.secret = secret;
    this.liveness = liveness;
  }

  /** Connects {@code channel} to its producer's end at {@code producerAddress}. */
  void connectInputChannel(ChannelId id, String producerAddress, InputChannel channel) {
    while (true) {
      Connection connection;
      try {
        connection = connection(producerAddress);
      } catch (IOException e) {
        channel.fail(e);
        return;
      }
      if (connection.request(id, channel)) {
        return;
      }
      // Its last channel was released meanwhile and it closes: open another.
    }
  }

  private Connection connection(String producerAddress) throws IOException {
    Connection existing = connections.get(producerAddress);
    if (existing != null && existing.channel.isActive() && !existing.retired) {
      return existing;
    }
    synchronized (connections) {
      existing = connections.get(producerAddress);
      if (existing != null && existing.channel.isActive() && !existing.retired) {
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
      connection.startPinging();
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

  /** Releases the channels the subtask consumed. */
  void subtaskEnded(String jobId, int attempt, int vertex, int subtask) {
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

    /** Set when its last channel was released: it closes, and no channel joins it any more. */
    volatile boolean retired;

    /** When the producer last answered a ping (System.nanoTime); on the event loop. */
    long lastPong = System.nanoTime();

    /** Why it was closed for want of answers, or null. */
    volatile String unanswered;

    /** Pings the producer every interval; closes the connection when answers stop. */
    void startPinging() {
      Channel ch = channel;
      long interval = liveness.pingInterval().toMillis();
      ScheduledFuture<?> pings =
          ch.eventLoop().scheduleAtFixedRate(this::ping, interval, interval, TimeUnit.MILLISECONDS);
      ch.closeFuture().addListener(f -> pings.cancel(false));
    }

    private void ping() {
      Channel ch = channel;
      long silent = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - lastPong);
      if (silent > liveness.timeout().toMillis()) {
        unanswered =
            "it answered no ping for "
                + silent
                + " ms (heartbeat.timeout = "
                + liveness.timeout().toMillis()
                + "): the connection is broken, one way or both";
        LOG.warn("Closing the data connection to {}: {}", address, unanswered);
        ch.close();
        return;
      }
      ch.writeAndFlush(Frames.bare(ch.alloc(), Frames.PING));
    }

    private final AtomicBoolean announceScheduled = new AtomicBoolean();
    private final Runnable announce = this::announceCredits;

    Connection(String address) {
      this.address = address;
    }

    /** Requests {@code id} for {@code channel}; false when this connection was retired. */
    synchronized boolean request(ChannelId id, InputChannel channel) {
      if (retired) {
        return false;
      }
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
      return true;
    }

    synchronized void releaseConsumer(String jobId, int attempt, int vertex, int subtask) {
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
      if (ended.isEmpty()) {
        return;
      }
      Channel ch = channel;
      for (Input input : ended) {
        inputs.remove(input.stream);
        if (ch.isActive()) {
          ch.writeAndFlush(Frames.release(ch.alloc(), input.stream));
        }
      }
      if (inputs.isEmpty()) {
        retired = true;
        connections.remove(address, this);
        ch.close();
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
      if (type == Frames.PONG) {
        connection.lastPong = System.nanoTime();
        return;
      }
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
              "The data connection to the TaskManager at "
                  + connection.address
                  + " was lost"
                  + (connection.unanswered == null ? "" : ": " + connection.unanswered));
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

  void close() {
    for (Connection c : connections.values()) {
      if (c.channel != null) {
        c.channel.close();
      }
    }
  }
}

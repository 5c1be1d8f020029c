package io.weir.cluster.data;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.socket.SocketChannel;
import io.weir.cluster.rpc.Secrets;
import io.weir.runtime.network.ChannelId;
import io.weir.runtime.network.ResultSubpartition;
import io.weir.runtime.task.Waker;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The server side of a TaskManager's data plane: its data port, which consumers on other
 * TaskManagers connect to, and the producers' ends of channels they stream from. A consumer asks
 * for a channel by its {@link ChannelId}; a request that arrives before the producer's task was
 * deployed here waits for it. With a cluster secret set, a connection must present it in its first
 * frame; a peer that does not, or that sends garbage, is logged and disconnected, and the port goes
 * on serving. Its connections run on the data plane's event loops.
 */
final class DataPlaneServer {

  private static final Logger LOG = LoggerFactory.getLogger(DataPlaneServer.class);

  private final String secret;
  private final Channel serverChannel;

  /** Producer ends registered here and not yet released. */
  private final Map<ChannelId, RemoteSubpartition> subpartitions = new HashMap<>();

  /** Consumers' requests for channels whose producer is not deployed yet. */
  private final Map<ChannelId, Request> waitingRequests = new HashMap<>();

  private record Request(Channel connection, int stream, int credits) {}

  /** Opens the data port on {@code bindHost:port} (0: any free port). */
  DataPlaneServer(
      EventLoopGroup group, DataTransport transport, String bindHost, int port, String secret)
      throws IOException {
    this.secret = secret;
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
      throw new IOException(
          "Cannot open the data port on " + bindHost + ":" + port + " (" + e.getMessage() + ")", e);
    }
  }

  int port() {
    return address().getPort();
  }

  /** The address the data port is bound to. */
  InetSocketAddress address() {
    return (InetSocketAddress) serverChannel.localAddress();
  }

  /** The producer's end of channel {@code id}, attached at once if its consumer asked already. */
  ResultSubpartition createSubpartition(ChannelId id, Waker producerWaker) {
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
          synchronized (DataPlaneServer.this) {
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
        case Frames.PING -> ctx.writeAndFlush(Frames.bare(ctx.alloc(), Frames.PONG));
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
      synchronized (DataPlaneServer.this) {
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

  void close() {
    serverChannel.close().syncUninterruptibly();
  }
}

package io.weir.cluster.data;

import io.netty.channel.IoHandlerFactory;
import io.netty.channel.ServerChannel;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.epoll.EpollSocketChannel;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import java.util.Locale;

/**
 * The socket transport under the data plane: Netty's native epoll where the platform has it (Linux;
 * fewer system calls and wake-ups than Java's selector), Java NIO everywhere else. Flink's {@code
 * taskmanager.network.netty.transport} chooses the same way.
 */
public enum DataTransport {
  NIO,
  EPOLL;

  /** Epoll where it is available, NIO otherwise. */
  public static DataTransport auto() {
    return Epoll.isAvailable() ? EPOLL : NIO;
  }

  /**
   * The transport named by {@code setting} ({@code auto}, {@code nio} or {@code epoll}), read from
   * the setting {@code key}.
   *
   * @throws IllegalArgumentException naming the key when the value is none of those, or when it is
   *     {@code epoll} on a platform without it
   */
  public static DataTransport of(String key, String setting) {
    String name = setting == null ? "auto" : setting.strip().toLowerCase(Locale.ROOT);
    switch (name) {
      case "auto":
        return auto();
      case "nio":
        return NIO;
      case "epoll":
        if (!Epoll.isAvailable()) {
          throw new IllegalArgumentException(
              "The setting "
                  + key
                  + " = 'epoll' cannot be used here: "
                  + Epoll.unavailabilityCause()
                  + "; use auto or nio",
              Epoll.unavailabilityCause());
        }
        return EPOLL;
      default:
        throw new IllegalArgumentException(
            "The setting " + key + " = '" + setting + "' is not one of auto, nio, epoll");
    }
  }

  IoHandlerFactory ioHandlerFactory() {
    return this == EPOLL ? EpollIoHandler.newFactory() : NioIoHandler.newFactory();
  }

  Class<? extends ServerChannel> serverChannel() {
    return this == EPOLL ? EpollServerSocketChannel.class : NioServerSocketChannel.class;
  }

  Class<? extends SocketChannel> socketChannel() {
    return this == EPOLL ? EpollSocketChannel.class : NioSocketChannel.class;
  }
}

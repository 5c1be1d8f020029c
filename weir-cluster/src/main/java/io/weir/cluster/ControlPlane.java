package io.weir.cluster;

import io.grpc.netty.NettyChannelBuilder;
import io.grpc.netty.NettyServerBuilder;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.ChannelOption;
import java.net.InetSocketAddress;

/**
 * gRPC's Netty builders for the control plane, on the buffer allocator the data plane and the REST
 * server use ({@link ByteBufAllocator#DEFAULT}) rather than the pooled allocator gRPC makes for
 * itself: one set of pools per process.
 */
final class ControlPlane {
  private ControlPlane() {}

  /** A control-plane server on {@code address}. */
  static NettyServerBuilder server(InetSocketAddress address) {
    return NettyServerBuilder.forAddress(address)
        .withOption(ChannelOption.ALLOCATOR, ByteBufAllocator.DEFAULT)
        .withChildOption(ChannelOption.ALLOCATOR, ByteBufAllocator.DEFAULT);
  }

  /** A plaintext control-plane channel to {@code host:port}. */
  static NettyChannelBuilder channel(String host, int port) {
    return NettyChannelBuilder.forAddress(host, port)
        .usePlaintext()
        .withOption(ChannelOption.ALLOCATOR, ByteBufAllocator.DEFAULT);
  }
}

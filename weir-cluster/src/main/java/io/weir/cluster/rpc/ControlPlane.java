package io.weir.cluster.rpc;

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
public final class ControlPlane {
  private ControlPlane() {}

  static {
    // Protobuf builds the descriptors of the whole control protocol the first time a message with
    // a map field (a job's configuration) is built or parsed: 40 to 60 ms on a cold JVM, which
    // fell on the first deployment, in the JobManager and again in every TaskManager. Every
    // process of a cluster builds them here instead, when it opens its server.
    WeirCluster.getDescriptor();
  }

  /** A control-plane server on {@code address}. */
  public static NettyServerBuilder server(InetSocketAddress address) {
    return NettyServerBuilder.forAddress(address)
        .withOption(ChannelOption.ALLOCATOR, ByteBufAllocator.DEFAULT)
        .withChildOption(ChannelOption.ALLOCATOR, ByteBufAllocator.DEFAULT);
  }

  /** A plaintext control-plane channel to {@code host:port}. */
  public static NettyChannelBuilder channel(String host, int port) {
    return NettyChannelBuilder.forAddress(host, port)
        .usePlaintext()
        .withOption(ChannelOption.ALLOCATOR, ByteBufAllocator.DEFAULT);
  }
}

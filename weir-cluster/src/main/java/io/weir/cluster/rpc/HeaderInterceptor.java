package io.weir.cluster.rpc;

import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.ClientCall;
import io.grpc.ClientInterceptor;
import io.grpc.ForwardingClientCall;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import java.util.function.Supplier;

/** Adds one header to every call of a channel, its value read when the call starts. */
final class HeaderInterceptor implements ClientInterceptor {

  private final Metadata.Key<String> key;
  private final Supplier<String> value;

  /**
   * @param value the header's value at call time; null sends no header
   */
  HeaderInterceptor(Metadata.Key<String> key, Supplier<String> value) {
    this.key = key;
    this.value = value;
  }

  @Override
  public <Q, R> ClientCall<Q, R> interceptCall(
      MethodDescriptor<Q, R> method, CallOptions options, Channel next) {
    return new ForwardingClientCall.SimpleForwardingClientCall<>(next.newCall(method, options)) {
      @Override
      public void start(Listener<R> listener, Metadata headers) {
        String v = value.get();
        if (v != null) {
          headers.put(key, v);
        }
        super.start(listener, headers);
      }
    };
  }
}

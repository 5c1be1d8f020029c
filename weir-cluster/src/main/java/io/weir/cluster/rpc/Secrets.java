package io.weir.cluster.rpc;

import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.ClientCall;
import io.grpc.ClientInterceptor;
import io.grpc.Context;
import io.grpc.Grpc;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.Status;
import io.weir.cluster.ClusterOptions;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The cluster's shared secret on the control plane: clients send it in a header of every call,
 * servers refuse (and log) a call without it. With no secret configured both are no-ops.
 */
public final class Secrets {

  private static final Logger LOG = LoggerFactory.getLogger(Secrets.class);

  /** The header that carries the secret; the REST API uses the same name. */
  public static final String HEADER = "weir-secret";

  static final Metadata.Key<String> KEY = Metadata.Key.of(HEADER, Metadata.ASCII_STRING_MARSHALLER);

  private Secrets() {}

  /** Compares in constant time; a null expected secret accepts everything. */
  public static boolean matches(String expected, String presented) {
    if (expected == null) {
      return true;
    }
    if (presented == null) {
      return false;
    }
    return MessageDigest.isEqual(
        expected.getBytes(StandardCharsets.UTF_8), presented.getBytes(StandardCharsets.UTF_8));
  }

  /** Adds the secret to every call. */
  public static ClientInterceptor client(String secret) {
    return new HeaderInterceptor(KEY, () -> secret);
  }

  /**
   * Starts every call in the root context: a call made while handling another process's call (a
   * notification sent on an acknowledgement) must not be cancelled when that call completes.
   */
  public static ClientInterceptor detached() {
    return new ClientInterceptor() {
      @Override
      public <Q, R> ClientCall<Q, R> interceptCall(
          MethodDescriptor<Q, R> method, CallOptions options, Channel next) {
        Context previous = Context.ROOT.attach();
        try {
          return next.newCall(method, options);
        } finally {
          Context.ROOT.detach(previous);
        }
      }
    };
  }

  /** Refuses calls without the secret, naming the peer in the log. */
  public static ServerInterceptor server(String secret, String what) {
    return new ServerInterceptor() {
      @Override
      public <Q, R> ServerCall.Listener<Q> interceptCall(
          ServerCall<Q, R> call, Metadata headers, ServerCallHandler<Q, R> next) {
        if (!matches(secret, headers.get(KEY))) {
          LOG.warn(
              "Refused {} from {} on the {}: it did not present the cluster's secret ({})",
              call.getMethodDescriptor().getBareMethodName(),
              call.getAttributes().get(Grpc.TRANSPORT_ATTR_REMOTE_ADDR),
              what,
              ClusterOptions.SECRET.key());
          call.close(
              Status.UNAUTHENTICATED.withDescription(
                  "wrong or missing cluster secret: set "
                      + ClusterOptions.SECRET.key()
                      + " to the cluster's secret"),
              new Metadata());
          return new ServerCall.Listener<>() {};
        }
        return next.startCall(call, headers);
      }
    };
  }
}

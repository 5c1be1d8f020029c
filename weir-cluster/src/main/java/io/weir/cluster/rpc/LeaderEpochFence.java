package io.weir.cluster.rpc;

import io.grpc.ClientInterceptor;
import io.grpc.Metadata;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.Status;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Fencing of the leader's calls under high availability: a leading JobManager sends its epoch in a
 * header of every call to a TaskManager ({@link #client}), and a TaskManager refuses a call whose
 * epoch is below the newest it knows of ({@link #interceptor}) — from ZooKeeper, or from an earlier
 * call. A deposed leader that has not noticed yet (a paused process) can then neither deploy,
 * trigger, notify nor cancel anything. Without high availability no epoch is sent or checked.
 *
 * <p>Thread-safe.
 */
public final class LeaderEpochFence {

  private static final Logger LOG = LoggerFactory.getLogger(LeaderEpochFence.class);

  /** The header that carries the caller's epoch. */
  static final Metadata.Key<String> KEY =
      Metadata.Key.of("weir-leader-epoch", Metadata.ASCII_STRING_MARSHALLER);

  /** The newest epoch known here; 0 while none is (no high availability, or no leader yet). */
  private final AtomicLong newest = new AtomicLong();

  /**
   * Adds {@code epoch}'s value at call time to every call; nothing while it is 0 or below (not
   * leading, or no high availability).
   */
  public static ClientInterceptor client(LongSupplier epoch) {
    return new HeaderInterceptor(
        KEY,
        () -> {
          long value = epoch.getAsLong();
          return value > 0 ? Long.toString(value) : null;
        });
  }

  /** A leader of {@code epoch} is known to exist (ZooKeeper published it). */
  public void learn(long epoch) {
    newest.accumulateAndGet(epoch, Math::max);
  }

  /** The newest epoch known here, 0 if none. */
  public long newest() {
    return newest.get();
  }

  /**
   * Refuses, with {@code FAILED_PRECONDITION}, a call whose epoch is below the newest known, or
   * that carries none once an epoch is known; a call of a newer epoch teaches it. {@code what}
   * names this server in the log.
   */
  public ServerInterceptor interceptor(String what) {
    return new ServerInterceptor() {
      @Override
      public <Q, R> ServerCall.Listener<Q> interceptCall(
          ServerCall<Q, R> call, Metadata headers, ServerCallHandler<Q, R> next) {
        String presented = headers.get(KEY);
        long known = newest.get();
        long epoch;
        try {
          epoch = presented == null ? 0 : Long.parseLong(presented);
        } catch (NumberFormatException e) {
          epoch = 0;
        }
        if (known > 0 && epoch < known) {
          String method = call.getMethodDescriptor().getBareMethodName();
          String caller =
              presented == null
                  ? "a JobManager that sent no epoch"
                  : "the leader of epoch " + epoch;
          LOG.warn(
              "Refused {} of {} on the {}: the leader of epoch {} has taken over",
              method,
              caller,
              what,
              known);
          call.close(
              Status.FAILED_PRECONDITION.withDescription(
                  caller + " was fenced: the leader of epoch " + known + " has taken over"),
              new Metadata());
          return new ServerCall.Listener<>() {};
        }
        learn(epoch);
        return next.startCall(call, headers);
      }
    };
  }
}

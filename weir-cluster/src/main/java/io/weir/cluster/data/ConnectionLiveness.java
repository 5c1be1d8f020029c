package io.weir.cluster.data;

import java.time.Duration;

/**
 * How a consumer makes sure its data connection still works both ways: it sends a ping every {@code
 * pingInterval}, the producer answers each one, and a connection that brought no answer for {@code
 * timeout} is closed, failing the channels it fed. Nothing else the producer sends counts:
 * checkpoint barriers need no credit and still flow when the consumer's credits no longer arrive (a
 * connection broken one way), while every record waits for a credit forever. A TaskManager takes
 * both from {@code heartbeat.interval} and {@code heartbeat.timeout}, as its control plane does.
 */
public record ConnectionLiveness(Duration pingInterval, Duration timeout) {

  /** Flink's heartbeat defaults: a ping every 10 s, closed after 50 s without an answer. */
  public static final ConnectionLiveness DEFAULT =
      new ConnectionLiveness(Duration.ofSeconds(10), Duration.ofSeconds(50));

  public ConnectionLiveness {
    if (pingInterval.isNegative()
        || pingInterval.isZero()
        || timeout.compareTo(pingInterval) <= 0) {
      throw new IllegalArgumentException(
          "A data connection needs a ping interval above 0 and a timeout above it (heartbeat.interval"
              + " and heartbeat.timeout): got "
              + pingInterval.toMillis()
              + " ms and "
              + timeout.toMillis()
              + " ms");
    }
  }
}

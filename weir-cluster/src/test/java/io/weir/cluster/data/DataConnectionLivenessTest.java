package io.weir.cluster.data;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.weir.runtime.network.ChannelId;
import io.weir.runtime.network.InputChannel;
import io.weir.runtime.network.InputGate;
import io.weir.runtime.task.Waker;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * A consumer's data connection that brings no answer to its pings is closed at the timeout, and its
 * channels fail naming the producer: a connection broken one way is found, even while the other way
 * still carries what needs no credit (barriers), where nothing else would find it.
 */
class DataConnectionLivenessTest {

  @Test
  void aConnectionThatAnswersNoPingFailsItsChannelsAtTheTimeout() throws Exception {
    ConnectionLiveness liveness =
        new ConnectionLiveness(Duration.ofMillis(50), Duration.ofMillis(500));
    // A producer's port whose connections take every byte and answer nothing (the kernel accepts
    // them; nobody reads): as when the way back from a producer is cut.
    try (ServerSocket silent = new ServerSocket(0, 4, InetAddress.getLoopbackAddress());
        NettyDataPlane consumers =
            new NettyDataPlane(
                "127.0.0.1", 0, "127.0.0.1", 0, null, DataTransport.NIO, 1, liveness)) {
      InputGate gate = new InputGate(new Waker(), 2);
      InputChannel channel = gate.addChannel(0, "a silent producer");
      String producer = "127.0.0.1:" + silent.getLocalPort();
      long start = System.nanoTime();
      consumers.connectInputChannel(new ChannelId("job", 0, 1, 0, 0, 1, 0), producer, channel);

      AtomicReference<Throwable> failure = new AtomicReference<>();
      await()
          .atMost(Duration.ofSeconds(10))
          .until(
              () -> {
                InputGate.Polled p = gate.pollNext();
                if (p != null && p.element() instanceof InputChannel.Failed f) {
                  failure.set(f.cause());
                }
                return failure.get() != null;
              });
      long elapsedMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);

      assertThat(failure.get())
          .hasMessageContaining(
              "The data connection to the TaskManager at " + producer + " was lost")
          .hasMessageContaining("it answered no ping for")
          .hasMessageContaining("heartbeat.timeout = 500");
      assertThat(elapsedMillis).as("closed at the timeout, not before").isGreaterThanOrEqualTo(500);
    }
  }

  @Test
  void aTimeoutNoLongerThanTheIntervalIsRefusedNamingTheSettings() {
    org.assertj.core.api.Assertions.assertThatThrownBy(
            () -> new ConnectionLiveness(Duration.ofSeconds(10), Duration.ofSeconds(10)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("heartbeat.interval")
        .hasMessageContaining("heartbeat.timeout");
  }
}

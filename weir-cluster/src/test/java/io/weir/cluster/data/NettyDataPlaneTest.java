package io.weir.cluster.data;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.weir.api.typeutils.DataInputDeserializer;
import io.weir.api.typeutils.TypeSerializer;
import io.weir.api.typeutils.Types;
import io.weir.runtime.network.Buffer;
import io.weir.runtime.network.ChannelEvent;
import io.weir.runtime.network.ChannelId;
import io.weir.runtime.network.ChannelSelectors;
import io.weir.runtime.network.ChannelStateEntry;
import io.weir.runtime.network.CreditDepth;
import io.weir.runtime.network.InputChannel;
import io.weir.runtime.network.InputGate;
import io.weir.runtime.network.RecordDeserializer;
import io.weir.runtime.network.RecordWriter;
import io.weir.runtime.network.ResultSubpartition;
import io.weir.runtime.task.Waker;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.LongSupplier;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.AfterParameterizedClassInvocation;
import org.junit.jupiter.params.BeforeParameterizedClassInvocation;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The data plane between two "TaskManagers" in one JVM over real TCP on 127.0.0.1: the same
 * contract as local channels (order, credits, events, overtaking and convertible barriers), and a
 * data port that survives garbage and refuses peers without the secret. Runs on every transport the
 * platform has (NIO always, epoll on Linux).
 */
@Timeout(120)
@ParameterizedClass(name = "{0}")
@MethodSource("transports")
class NettyDataPlaneTest {

  private static final TypeSerializer<String> STRINGS = Types.STRING.createSerializer();
  private static final String SECRET = "s3cret";
  private static final AtomicInteger EDGES = new AtomicInteger();

  private static NettyDataPlane producers;
  private static NettyDataPlane consumers;

  @Parameter DataTransport transport;

  static Stream<DataTransport> transports() {
    return DataTransport.auto() == DataTransport.EPOLL
        ? Stream.of(DataTransport.NIO, DataTransport.EPOLL)
        : Stream.of(DataTransport.NIO);
  }

  @BeforeParameterizedClassInvocation
  static void start(DataTransport on) throws Exception {
    producers = new NettyDataPlane("127.0.0.1", 0, "127.0.0.1", SECRET, on, 1);
    consumers = new NettyDataPlane("127.0.0.1", 0, "127.0.0.1", SECRET, on, 1);
    assertThat(producers.transport()).isEqualTo(on);
  }

  @AfterParameterizedClassInvocation
  static void stop() {
    producers.close();
    consumers.close();
  }

  /** One channel across the planes: a writer at the producer's, a gate at the consumer's. */
  private static final class Link {
    final Waker producerWaker = new Waker();
    final Waker consumerWaker = new Waker();
    final InputGate gate;
    final InputChannel channel;
    final RecordWriter<String> writer;
    final List<String> outcomes = new CopyOnWriteArrayList<>();

    Link(int credits, boolean consumerFirst) {
      this(CreditDepth.fixed(credits), System::nanoTime, consumerFirst);
    }

    Link(CreditDepth depth, LongSupplier consumerClock, boolean consumerFirst) {
      ChannelId id = new ChannelId("job", 0, EDGES.incrementAndGet(), 0, 0, 1, 0);
      gate = new InputGate(consumerWaker, depth, consumerClock);
      channel = gate.addChannel(0, "remote producer");
      ResultSubpartition end;
      if (consumerFirst) {
        consumers.connectInputChannel(id, producers.address(), channel);
        end = producers.createSubpartition(id, consumers.address(), producerWaker);
      } else {
        end = producers.createSubpartition(id, consumers.address(), producerWaker);
        consumers.connectInputChannel(id, producers.address(), channel);
      }
      writer =
          new RecordWriter<>(
              new ResultSubpartition[] {end},
              ChannelSelectors.forward(),
              STRINGS,
              64,
              false,
              producerWaker,
              () -> false);
      writer.setBarrierListener(
          new RecordWriter.ChannelBarrierListener() {
            @Override
            public void delivered(int c, long checkpointId) {
              outcomes.add("delivered " + checkpointId);
            }

            @Override
            public void converted(int c, long checkpointId, List<ChannelStateEntry> overtakenHere) {
              outcomes.add("converted " + checkpointId + " with " + overtakenHere.size());
            }
          });
    }

    /** Waits until the producer holds a credit (the consumer's request arrived). */
    void awaitCredit() {
      await().atMost(Duration.ofSeconds(10)).until(writer::isAvailable);
    }

    /** Takes everything received so far, as records and event names. */
    List<String> drain() throws Exception {
      List<String> out = new ArrayList<>();
      DataInputDeserializer view = new DataInputDeserializer();
      InputGate.Polled polled;
      while ((polled = gate.pollNext()) != null) {
        if (polled.element() instanceof Buffer b) {
          RecordDeserializer d = polled.channel().getDeserializer();
          d.setNextBuffer(b);
          while (d.nextRecord(view)) {
            out.add(STRINGS.deserialize(view));
          }
        } else if (polled.element() instanceof ChannelEvent.CheckpointBarrier barrier) {
          out.add("<barrier " + barrier.checkpointId() + (barrier.unaligned() ? " u" : "") + ">");
        } else {
          out.add("<" + polled.element().getClass().getSimpleName() + ">");
        }
      }
      return out;
    }

    /**
     * Emits records that fill most of a buffer each while the producer has credit, credits that
     * arrive later included, until {@code buffers} are queued at the consumer; then no credit may
     * be left.
     */
    void fillAndAwaitQueued(int buffers) {
      String big = "y".repeat(50);
      await()
          .atMost(Duration.ofSeconds(10))
          .until(
              () -> {
                while (writer.isAvailable()) {
                  writer.emit(big, RecordWriter.NO_TIMESTAMP);
                }
                return channel.queuedBuffers() >= buffers;
              });
      assertThat(channel.queuedBuffers()).isEqualTo(buffers);
      assertThat(writer.isAvailable()).isFalse();
    }

    /** Takes the next buffer received and recycles it. */
    void take() {
      InputGate.Polled polled = gate.pollNext();
      assertThat(polled).isNotNull();
      ((Buffer) polled.element()).recycle();
    }

    /** Drains until {@code n} elements were seen. */
    List<String> drainUntil(int n) throws Exception {
      List<String> out = new ArrayList<>();
      await()
          .atMost(Duration.ofSeconds(10))
          .until(
              () -> {
                out.addAll(drain());
                return out.size() >= n;
              });
      return out;
    }
  }

  @Test
  void recordsAndEventsCrossInOrderWhicheverEndComesFirst() throws Exception {
    for (boolean consumerFirst : new boolean[] {true, false}) {
      // Credits enough for everything: this thread both produces and consumes.
      Link link = new Link(100, consumerFirst);
      link.awaitCredit();
      List<String> expected = new ArrayList<>();
      for (int i = 0; i < 20; i++) {
        String r = "record-" + i + "-" + "x".repeat(i * 7);
        link.writer.emit(r, RecordWriter.NO_TIMESTAMP);
        expected.add(r);
        if (i == 9) {
          link.writer.broadcastEvent(new ChannelEvent.Watermark(42));
          expected.add("<Watermark>");
        }
      }
      link.writer.broadcastEvent(ChannelEvent.EndOfPartition.INSTANCE);
      expected.add("<EndOfPartition>");
      assertThat(link.drainUntil(expected.size())).isEqualTo(expected);
    }
  }

  @Test
  void aChannelTakenFastGetsMoreCreditsAcrossTheNetworkAndGivesThemBackWhenTakenSlowly()
      throws Exception {
    long[] now = {0};
    // 2 to 6 credits; a channel gets those its consumer takes in 300 ms at the last 100 ms's rate.
    Link link =
        new Link(new CreditDepth(2, 6, Duration.ofMillis(300).toNanos()), () -> now[0], false);
    link.awaitCredit();
    link.fillAndAwaitQueued(2);
    link.take(); // the first buffer taken starts the first period
    link.take();
    link.awaitCredit();
    link.fillAndAwaitQueued(2);

    now[0] = Duration.ofMillis(100).toNanos();
    link.take(); // 2 buffers in 100 ms: 6 in 300 ms
    assertThat(link.channel.creditDepth()).isEqualTo(6);
    link.awaitCredit();
    link.fillAndAwaitQueued(6);

    now[0] = Duration.ofMillis(200).toNanos();
    link.take(); // 1 buffer in 100 ms: 3 in 300 ms, and a depth halves at most
    assertThat(link.channel.creditDepth()).isEqualTo(3);
    link.take();
    link.take();
    link.take();
    // 2 queued, 3 credits: one more buffer may come, and no second one.
    link.awaitCredit();
    link.fillAndAwaitQueued(3);
    assertThat(link.writer.isAvailable()).isFalse();
    link.take();
    link.take();
    link.take();
    await().atMost(Duration.ofSeconds(10)).until(() -> link.writer.getSubpartition(0).isDrained());
  }

  @Test
  void aProducerAheadOfItsConsumerStreamsEveryRecordInOrderWhateverItsCredits() throws Exception {
    List<CreditDepth> depths =
        List.of(
            CreditDepth.fixed(1),
            CreditDepth.fixed(2),
            CreditDepth.fixed(4),
            CreditDepth.fixed(8),
            new CreditDepth(2, 16, Duration.ofMillis(1).toNanos()));
    for (CreditDepth credits : depths) {
      Link link = new Link(credits, System::nanoTime, false);
      link.awaitCredit();
      int records = 3000;
      // A producer thread that waits for credit inside emit, as a task does for a record that
      // spans buffers; records of 50 to 110 bytes in 64-byte buffers.
      Thread producer =
          new Thread(
              () -> {
                link.producerWaker.bindTo(Thread.currentThread());
                for (int i = 0; i < records; i++) {
                  link.writer.emit(streamed(i), RecordWriter.NO_TIMESTAMP);
                }
                link.writer.broadcastEvent(ChannelEvent.EndOfPartition.INSTANCE);
              },
              "producer with " + credits + " credits");
      link.consumerWaker.bindTo(Thread.currentThread());
      producer.start();

      List<String> received = new ArrayList<>();
      DataInputDeserializer view = new DataInputDeserializer();
      boolean ended = false;
      while (!ended) {
        InputGate.Polled polled = link.gate.pollNext();
        if (polled == null) {
          long before = System.nanoTime();
          link.consumerWaker.await(before + Duration.ofSeconds(10).toNanos());
          assertThat(System.nanoTime() - before)
              .as(
                  "a consumer with %d credits waited for its next buffer (stalled after %d records)",
                  credits, received.size())
              .isLessThan(Duration.ofSeconds(10).toNanos());
        } else if (polled.element() instanceof Buffer b) {
          RecordDeserializer d = polled.channel().getDeserializer();
          d.setNextBuffer(b);
          while (d.nextRecord(view)) {
            received.add(STRINGS.deserialize(view));
          }
        } else {
          ended = polled.element() instanceof ChannelEvent.EndOfPartition;
        }
      }
      producer.join();
      assertThat(received).hasSize(records);
      for (int i = 0; i < records; i++) {
        assertThat(received.get(i)).isEqualTo(streamed(i));
      }
    }
  }

  @Test
  void buffersHandedOverLazilyGoOutWithTheConsumersNextCredits() throws Exception {
    Link link = new Link(4, false);
    RemoteSubpartition end = (RemoteSubpartition) link.writer.getSubpartition(0);
    for (int round = 1; round <= 3; round++) {
      await().atMost(Duration.ofSeconds(10)).until(end::isDrained); // all four credits back
      // Four credits: the first two buffers are written at once; when the last two are, the
      // consumer has two it owes credits for, and taking those brings its next announcement
      // (half the depth is due), which wakes the producer's loop: they go to the loop without
      // waking it.
      emitWhileAvailable(link, end, 2 * round);
      assertThat(end.lazyWritesMade()).isEqualTo(2 * round);
      assertThat(link.writer.isAvailable()).isFalse();
      await().atMost(Duration.ofSeconds(10)).until(() -> link.channel.queuedBuffers() >= 2);
      link.take();
      link.take();
      await().atMost(Duration.ofSeconds(10)).until(() -> link.channel.queuedBuffers() == 2);
      link.take();
      link.take();
    }
  }

  private static String streamed(int i) {
    return i + ":" + "z".repeat(45 + (i * 31) % 60);
  }

  /** Emits buffer-filling records while the producer has credit, until {@code lazy} went lazily. */
  private static void emitWhileAvailable(Link link, RemoteSubpartition end, long lazy) {
    String big = "y".repeat(50);
    await()
        .atMost(Duration.ofSeconds(10))
        .until(
            () -> {
              while (link.writer.isAvailable()) {
                link.writer.emit(big, RecordWriter.NO_TIMESTAMP);
              }
              return end.lazyWritesMade() >= lazy;
            });
  }

  @Test
  void creditsBoundWhatIsOnItsWayAndReturnAsTheConsumerTakesBuffers() throws Exception {
    Link link = new Link(2, false);
    link.awaitCredit();
    String big = "y".repeat(50); // most of a 64-byte buffer
    int emitted = 0;
    while (link.writer.isAvailable()) {
      link.writer.emit(big, RecordWriter.NO_TIMESTAMP);
      emitted++;
      assertThat(emitted).isLessThan(100);
    }
    await().atMost(Duration.ofSeconds(10)).until(() -> link.channel.queuedBuffers() == 2);
    assertThat(link.writer.isAvailable()).isFalse();
    InputGate.Polled polled = link.gate.pollNext();
    ((Buffer) polled.element()).recycle();
    await().atMost(Duration.ofSeconds(10)).until(link.writer::isAvailable);
    assertThat(link.channel.queuedBuffers()).isEqualTo(1);
  }

  /**
   * Credits are announced lazily: at once when half of a channel's credits are due (the producer
   * may be waiting for them), otherwise with the consumer's loop's next wake-up, which the next
   * buffer brings. Either way the producer gets every credit back.
   */
  @Test
  void creditsGoAtOnceWhenHalfAreDueAndOtherwiseWithTheNextBuffer() throws Exception {
    Link link = new Link(4, false);
    link.awaitCredit();
    for (int i = 0; i < 4; i++) {
      sendOneBuffer(link, "b" + i);
    }
    await().atMost(Duration.ofSeconds(10)).until(() -> link.channel.queuedBuffers() == 4);
    assertThat(link.writer.isAvailable()).isFalse();

    // Two of four credits due, and nothing else crosses the connection: they go at once.
    List<String> taken = new ArrayList<>(take(link));
    taken.addAll(take(link));
    await().atMost(Duration.ofSeconds(10)).until(link.writer::isAvailable);

    // One credit due while the producer holds one: it goes when the producer's last buffer wakes
    // the consumer's loop.
    sendOneBuffer(link, "b4");
    await().atMost(Duration.ofSeconds(10)).until(() -> link.channel.queuedBuffers() == 3);
    taken.addAll(take(link));
    sendOneBuffer(link, "b5");
    await().atMost(Duration.ofSeconds(10)).until(link.writer::isAvailable);

    taken.addAll(link.drainUntil(3));
    assertThat(taken).containsExactly("b0", "b1", "b2", "b3", "b4", "b5");
  }

  private static void sendOneBuffer(Link link, String record) {
    link.writer.emit(record, RecordWriter.NO_TIMESTAMP);
    link.writer.flushAll();
  }

  /** The records of the next buffer the consumer takes. */
  private static List<String> take(Link link) throws Exception {
    InputGate.Polled polled = link.gate.pollNext();
    assertThat(polled).isNotNull();
    List<String> out = new ArrayList<>();
    Buffer b = (Buffer) polled.element();
    RecordDeserializer d = polled.channel().getDeserializer();
    d.setNextBuffer(b);
    DataInputDeserializer view = new DataInputDeserializer();
    while (d.nextRecord(view)) {
      out.add(STRINGS.deserialize(view));
    }
    return out;
  }

  @Test
  void anOvertakingBarrierJumpsTheBuffersThatReachedTheConsumerWhoKeepsThem() throws Exception {
    Link link = new Link(10, false);
    link.awaitCredit();
    List<String> before = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      String r = "before-" + i + "-" + "b".repeat(30);
      before.add(r);
      link.writer.emit(r, RecordWriter.NO_TIMESTAMP);
    }
    link.writer.flushAll();
    await().atMost(Duration.ofSeconds(10)).until(() -> link.channel.queuedBuffers() >= 3);
    int queued = link.channel.queuedBuffers();
    List<ChannelStateEntry> capturedAtConsumer = link.channel.captureQueued();

    List<List<ChannelStateEntry>> atProducer =
        link.writer.broadcastPriorityEvent(new ChannelEvent.CheckpointBarrier(7, 0, false, true));

    assertThat(atProducer.get(0)).as("nothing waited at the producer's end").isEmpty();
    List<String> out = link.drainUntil(1 + before.size());
    assertThat(out.get(0)).isEqualTo("<barrier 7 u>");
    assertThat(out.subList(1, out.size())).isEqualTo(before);
    List<ChannelStateEntry> kept = link.channel.takeOvertaken(7);
    assertThat(kept).hasSize(queued);
    for (int i = 0; i < kept.size(); i++) {
      assertThat(kept.get(i)).isEqualTo(capturedAtConsumer.get(i));
    }
  }

  @Test
  void aConvertibleBarrierIsDeliveredOrConvertedAtTheConsumerExactlyOnce() throws Exception {
    Link delivered = new Link(10, false);
    delivered.awaitCredit();
    delivered.writer.emit("a", RecordWriter.NO_TIMESTAMP);
    delivered.writer.broadcastConvertibleBarrier(new ChannelEvent.CheckpointBarrier(3, 0, false));
    assertThat(delivered.drainUntil(2)).containsExactly("a", "<barrier 3>");
    await().atMost(Duration.ofSeconds(10)).until(() -> !delivered.outcomes.isEmpty());
    delivered.writer.requestConversion(0, 3); // too late: ignored at the consumer
    delivered.writer.emit("b", RecordWriter.NO_TIMESTAMP);
    delivered.writer.flushAll();
    assertThat(delivered.drainUntil(1)).containsExactly("b");
    assertThat(delivered.outcomes).containsExactly("delivered 3");

    Link converted = new Link(10, false);
    converted.awaitCredit();
    for (int i = 0; i < 4; i++) {
      converted.writer.emit("c" + i + "-" + "c".repeat(40), RecordWriter.NO_TIMESTAMP);
    }
    converted.writer.broadcastConvertibleBarrier(new ChannelEvent.CheckpointBarrier(5, 0, false));
    await().atMost(Duration.ofSeconds(10)).until(() -> converted.channel.queuedBuffers() > 0);
    // The conversion request travels behind the barrier, so it finds every buffer before it.
    converted.writer.requestConversion(0, 5);
    await().atMost(Duration.ofSeconds(10)).until(() -> !converted.outcomes.isEmpty());
    assertThat(converted.outcomes).containsExactly("converted 5 with 0");
    int queued = converted.channel.queuedBuffers();
    assertThat(converted.channel.takeOvertaken(5)).isNotEmpty().hasSize(queued);
    List<String> out = converted.drainUntil(5);
    assertThat(out.get(0)).isEqualTo("<barrier 5 u>");
    assertThat(out).hasSize(5);
  }

  @Test
  void aConvertibleBarrierStillHeldAtTheProducerIsConvertedThere() throws Exception {
    ChannelId id = new ChannelId("job", 0, EDGES.incrementAndGet(), 0, 0, 1, 0);
    Waker waker = new Waker();
    ResultSubpartition end = producers.createSubpartition(id, consumers.address(), waker);
    List<String> outcomes = new ArrayList<>();
    end.setBarrierListener(
        new ResultSubpartition.BarrierListener() {
          @Override
          public void delivered(long checkpointId) {
            outcomes.add("delivered");
          }

          @Override
          public void converted(long checkpointId, List<ChannelStateEntry> overtakenHere) {
            outcomes.add("converted with " + overtakenHere.size());
          }
        });
    end.addBuffer(Buffer.wrap(new byte[] {1, 2, 3}));
    end.addConvertibleBarrier(new ChannelEvent.CheckpointBarrier(9, 0, false));
    end.requestConversion(9);
    assertThat(outcomes).containsExactly("converted with 1");
    // The consumer asks only now: the barrier comes first, overtaking.
    InputGate gate = new InputGate(new Waker(), 4);
    InputChannel channel = gate.addChannel(0, "late");
    consumers.connectInputChannel(id, producers.address(), channel);
    await().atMost(Duration.ofSeconds(10)).until(() -> channel.queuedBuffers() == 1);
    assertThat(gate.pollNext().element())
        .isEqualTo(new ChannelEvent.CheckpointBarrier(9, 0, false, true));
  }

  @Test
  void garbageAndPeersWithoutTheSecretAreDisconnectedAndTheDataPortKeepsWorking() throws Exception {
    assertThat(closedByPeer("GET / HTTP/1.1\r\nHost: x\r\n\r\n".getBytes())).isTrue();
    byte[] noSecret;
    try (var bytes = new java.io.ByteArrayOutputStream();
        var out = new java.io.DataOutputStream(bytes)) {
      out.writeInt(1 + 12);
      out.writeByte(Frames.HELLO);
      out.writeInt(Frames.MAGIC);
      out.writeInt(Frames.VERSION);
      out.writeInt(0);
      noSecret = bytes.toByteArray();
    }
    assertThat(closedByPeer(noSecret)).isTrue();
    byte[] olderVersion;
    byte[] secret = SECRET.getBytes(java.nio.charset.StandardCharsets.UTF_8);
    try (var bytes = new java.io.ByteArrayOutputStream();
        var out = new java.io.DataOutputStream(bytes)) {
      out.writeInt(1 + 12 + secret.length);
      out.writeByte(Frames.HELLO);
      out.writeInt(Frames.MAGIC);
      out.writeInt(Frames.VERSION - 1);
      out.writeInt(secret.length);
      out.write(secret);
      olderVersion = bytes.toByteArray();
    }
    assertThat(closedByPeer(olderVersion)).as("the secret, but another version").isTrue();
    NettyDataPlane wrong = new NettyDataPlane("127.0.0.1", 0, "127.0.0.1", "not-it", transport, 1);
    try {
      InputGate gate = new InputGate(new Waker(), 2);
      InputChannel channel = gate.addChannel(0, "refused");
      ChannelId id = new ChannelId("job", 0, EDGES.incrementAndGet(), 0, 0, 1, 0);
      wrong.connectInputChannel(id, producers.address(), channel);
      await()
          .atMost(Duration.ofSeconds(10))
          .until(
              () -> {
                InputGate.Polled p = gate.pollNext();
                return p != null && p.element() instanceof InputChannel.Failed;
              });
    } finally {
      wrong.close();
    }
    // Still serving.
    Link link = new Link(4, false);
    link.awaitCredit();
    link.writer.emit("still here", RecordWriter.NO_TIMESTAMP);
    link.writer.flushAll();
    assertThat(link.drainUntil(1)).containsExactly("still here");
  }

  /** Sends {@code bytes} to the producers' data port; true when the port closes the connection. */
  private static boolean closedByPeer(byte[] bytes) throws Exception {
    String[] hostPort = producers.address().split(":");
    try (Socket socket = new Socket(hostPort[0], Integer.parseInt(hostPort[1]))) {
      socket.setSoTimeout(10_000);
      OutputStream out = socket.getOutputStream();
      out.write(bytes);
      out.flush();
      InputStream in = socket.getInputStream();
      return in.read() == -1;
    }
  }
}

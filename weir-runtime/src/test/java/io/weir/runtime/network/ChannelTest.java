package io.weir.runtime.network;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.weir.api.typeutils.DataInputDeserializer;
import io.weir.api.typeutils.DataInputView;
import io.weir.api.typeutils.DataOutputView;
import io.weir.api.typeutils.TypeInformation;
import io.weir.api.typeutils.TypeSerializer;
import io.weir.api.typeutils.TypeSerializerSnapshot;
import io.weir.api.typeutils.Types;
import io.weir.runtime.metrics.TimerGauge;
import io.weir.runtime.task.Waker;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;
import net.jqwik.api.constraints.StringLength;
import org.junit.jupiter.api.Test;

/** The channel contract: order, credits, priority events, capture and replay of buffers. */
class ChannelTest {

  private static final TypeSerializer<String> STRINGS = Types.STRING.createSerializer();
  private static final TypeSerializer<Long> LONGS = Types.LONG.createSerializer();

  private final Waker consumer = new Waker();
  private final Waker producer = new Waker();

  private InputGate gate(int credits, int channels) {
    InputGate gate = new InputGate(consumer, credits);
    for (int i = 0; i < channels; i++) {
      gate.addChannel(0, "producer " + i);
    }
    return gate;
  }

  /** Local producer ends of {@code channels}. */
  private LocalResultSubpartition[] ends(InputChannel... channels) {
    LocalResultSubpartition[] ends = new LocalResultSubpartition[channels.length];
    for (int i = 0; i < channels.length; i++) {
      ends[i] = new LocalResultSubpartition(channels[i], producer);
    }
    return ends;
  }

  private LocalResultSubpartition[] ends(InputGate gate) {
    return ends(gate.getChannels().toArray(new InputChannel[0]));
  }

  /** {@code Long}'s serializer, fixed length 8, for tests to override one method of. */
  private static class ForwardingLongSerializer extends TypeSerializer<Long> {
    @Override
    public boolean isImmutableType() {
      return true;
    }

    @Override
    public TypeSerializer<Long> duplicate() {
      return this;
    }

    @Override
    public Long copy(Long from) {
      return from;
    }

    @Override
    public int getLength() {
      return LONGS.getLength();
    }

    @Override
    public void serialize(Long record, DataOutputView target) throws IOException {
      LONGS.serialize(record, target);
    }

    @Override
    public Long deserialize(DataInputView source) throws IOException {
      return LONGS.deserialize(source);
    }

    @Override
    public TypeSerializerSnapshot<Long> snapshotConfiguration() {
      return LONGS.snapshotConfiguration();
    }

    @Override
    public boolean equals(Object obj) {
      return obj == this;
    }

    @Override
    public int hashCode() {
      return System.identityHashCode(this);
    }
  }

  /** Records what each channel of a writer reported about its convertible barriers. */
  private static final class Outcomes implements RecordWriter.ChannelBarrierListener {
    final List<Integer> delivered = new ArrayList<>();
    final List<List<ChannelStateEntry>> converted = new ArrayList<>();

    @Override
    public void delivered(int channel, long checkpointId) {
      delivered.add(channel);
    }

    @Override
    public void converted(int channel, long checkpointId, List<ChannelStateEntry> overtakenHere) {
      converted.add(overtakenHere);
    }
  }

  private RecordWriter<String> writer(InputGate gate, int bufferSize) {
    return new RecordWriter<>(
        ends(gate), ChannelSelectors.forward(), STRINGS, bufferSize, false, producer, () -> false);
  }

  /** Reads one record, just cut out of {@code channel}'s stream, as text. */
  @FunctionalInterface
  private interface RecordReader {
    String read(InputChannel channel, RecordDeserializer deserializer, DataInputDeserializer view)
        throws IOException;
  }

  /** Reads every record the gate holds now, in order. */
  private static List<String> drain(InputGate gate) throws Exception {
    return drain(gate, (channel, deserializer, view) -> STRINGS.deserialize(view));
  }

  /** Reads every record the gate holds now, in order, each through {@code reader}. */
  private static List<String> drain(InputGate gate, RecordReader reader) throws Exception {
    List<String> out = new ArrayList<>();
    DataInputDeserializer view = new DataInputDeserializer();
    InputGate.Polled polled;
    while ((polled = gate.pollNext()) != null) {
      if (polled.element() instanceof Buffer b) {
        RecordDeserializer d = polled.channel().getDeserializer();
        d.setNextBuffer(b);
        while (d.nextRecord(view)) {
          out.add(reader.read(polled.channel(), d, view));
        }
      } else {
        out.add("<" + polled.element().getClass().getSimpleName() + ">");
      }
    }
    return out;
  }

  @Property(tries = 200)
  void recordsOfAnySizeCrossBuffersIntact(
      @ForAll @Size(max = 60) List<@StringLength(max = 300) String> records,
      @ForAll @IntRange(min = 64, max = 512) int bufferSize)
      throws Exception {
    InputGate gate = gate(1_000_000, 1);
    RecordWriter<String> writer = writer(gate, bufferSize);
    for (String r : records) {
      writer.emit(r, RecordWriter.NO_TIMESTAMP);
    }
    writer.broadcastEvent(ChannelEvent.EndOfPartition.INSTANCE);
    List<String> expected = new ArrayList<>(records);
    expected.add("<EndOfPartition>");
    assertThat(drain(gate)).isEqualTo(expected);
  }

  /**
   * Records of a fixed-length type are written straight into the buffer while they fit there and
   * through the staging copy when they straddle its end; both framings read back the same, with and
   * without timestamps, and the round-robin selector is asked once per record.
   */
  @Property(tries = 200)
  void fixedLengthRecordsWrittenInPlaceReadBackIntact(
      @ForAll @Size(max = 200) List<Long> records,
      @ForAll @IntRange(min = 64, max = 200) int bufferSize,
      @ForAll boolean stamped)
      throws Exception {
    InputGate gate = gate(1_000_000, 2);
    RecordWriter<Long> writer =
        new RecordWriter<>(
            ends(gate),
            ChannelSelectors.rebalance(2, 0),
            LONGS,
            bufferSize,
            false,
            producer,
            () -> false);
    for (int i = 0; i < records.size(); i++) {
      writer.emit(records.get(i), stamped ? i : RecordWriter.NO_TIMESTAMP);
    }
    writer.broadcastEvent(ChannelEvent.EndOfPartition.INSTANCE);

    List<String> read =
        drain(
            gate,
            (channel, deserializer, view) ->
                channel.getChannelIndex()
                    + "/"
                    + (deserializer.lastRecordHasTimestamp() ? view.readLong() + ":" : "")
                    + LONGS.deserialize(view));
    List<List<String>> perChannel = List.of(new ArrayList<>(), new ArrayList<>());
    for (String record : read) {
      if (!record.startsWith("<")) { // not an event
        perChannel.get(record.charAt(0) - '0').add(record.substring(2));
      }
    }
    List<List<String>> expected = List.of(new ArrayList<>(), new ArrayList<>());
    for (int i = 0; i < records.size(); i++) {
      expected.get(i % 2).add((stamped ? i + ":" : "") + records.get(i));
    }
    assertThat(perChannel).isEqualTo(expected);
  }

  /**
   * A writer counts the bytes of the buffers it hands to its channels: a record's framing (4-byte
   * header, 8-byte timestamp when it has one) and payload, counted when its buffer leaves, once per
   * channel it goes to. What the consumer takes adds up to the same.
   */
  @Test
  void aWriterCountsTheBytesOfTheBuffersItSendsOncePerChannel() throws Exception {
    InputGate gate = gate(1_000_000, 1);
    RecordWriter<Long> writer =
        new RecordWriter<>(
            ends(gate), ChannelSelectors.forward(), LONGS, 64, false, producer, () -> false);
    for (long i = 0; i < 5; i++) {
      writer.emit(i, RecordWriter.NO_TIMESTAMP);
    }
    assertThat(writer.bytesSent()).as("60 bytes wait in the partly filled buffer").isZero();
    writer.emit(5L, RecordWriter.NO_TIMESTAMP);
    assertThat(writer.bytesSent()).as("the first buffer filled up and left").isEqualTo(64);
    writer.emit(6L, 1234L);
    writer.flushAll();
    assertThat(writer.bytesSent()).isEqualTo(6 * 12 + 20);
    assertThat(bytesTaken(gate)).isEqualTo(writer.bytesSent());

    InputGate three = gate(1_000_000, 3);
    RecordWriter<String> broadcast =
        new RecordWriter<>(
            ends(three), ChannelSelectors.broadcast(), STRINGS, 64, false, producer, () -> false);
    broadcast.emit("abc", 7L);
    broadcast.broadcastEvent(ChannelEvent.EndOfPartition.INSTANCE);
    int serialized = 4 + 8 + serializedLength(STRINGS, "abc");
    assertThat(broadcast.bytesSent()).isEqualTo(3L * serialized);
    assertThat(bytesTaken(three)).isEqualTo(broadcast.bytesSent());
  }

  private static int serializedLength(TypeSerializer<String> serializer, String record)
      throws IOException {
    io.weir.api.typeutils.DataOutputSerializer out =
        new io.weir.api.typeutils.DataOutputSerializer(16);
    serializer.serialize(record, out);
    return out.length();
  }

  /** The bytes of every buffer the gate holds now, taken and recycled. */
  private static long bytesTaken(InputGate gate) {
    long bytes = 0;
    InputGate.Polled polled;
    while ((polled = gate.pollNext()) != null) {
      if (polled.element() instanceof Buffer b) {
        bytes += b.size();
        b.recycle();
      }
    }
    return bytes;
  }

  @Test
  void aSerializerWritingMoreThanItsFixedLengthIsNamed() {
    TypeSerializer<Long> lying =
        new ForwardingLongSerializer() {
          @Override
          public void serialize(Long record, DataOutputView target) throws IOException {
            target.writeLong(record);
            target.writeByte(0);
          }
        };
    InputGate gate = gate(10, 1);
    RecordWriter<Long> writer =
        new RecordWriter<>(
            ends(gate), ChannelSelectors.forward(), lying, 1024, false, producer, () -> false);

    assertThatThrownBy(() -> writer.emit(7L, RecordWriter.NO_TIMESTAMP))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining(lying.getClass().getName())
        .hasMessageContaining("8 bytes long but wrote 9")
        .hasMessageContaining("getLength() must return -1");
  }

  @Test
  void aBufferTimeoutTickSendsOnlyTheBuffersThatWereThereAtTheTickBefore() throws Exception {
    InputGate gate = gate(10, 1);
    RecordWriter<String> writer = writer(gate, 1024);
    assertThat(writer.mayFlushAged()).as("nothing written yet").isFalse();

    writer.emit("first", RecordWriter.NO_TIMESTAMP);
    assertThat(writer.mayFlushAged()).isTrue();
    writer.flushAged();
    assertThat(drain(gate)).as("the buffer began after the last tick: it waits").isEmpty();
    writer.emit("second", RecordWriter.NO_TIMESTAMP);
    writer.flushAged();
    assertThat(drain(gate))
        .as("the buffer was there at the tick before: out, with what joined it since")
        .containsExactly("first", "second");
    assertThat(writer.mayFlushAged()).isFalse();

    // A buffer that filled and went out between two ticks leaves no mark on its successor.
    writer.emit("third", RecordWriter.NO_TIMESTAMP);
    writer.flushAged();
    writer.broadcastEvent(ChannelEvent.EndOfData.INSTANCE);
    writer.emit("fourth", RecordWriter.NO_TIMESTAMP);
    writer.flushAged();
    assertThat(drain(gate)).containsExactly("third", "<EndOfData>");
    writer.flushAged();
    assertThat(drain(gate)).containsExactly("fourth");
  }

  @Test
  void aBufferTimeoutTickKeepsAPartlyFilledBufferWhileItsConsumerHasBuffersOfTheChannelToTake()
      throws Exception {
    InputGate gate = gate(4, 1);
    RecordWriter<String> writer = writer(gate, 64);
    String big = "x".repeat(50); // one record fills most of a buffer
    writer.emit(big, RecordWriter.NO_TIMESTAMP);
    writer.emit(big, RecordWriter.NO_TIMESTAMP); // the first buffer went out full
    InputChannel channel = gate.getChannels().get(0);
    assertThat(channel.queuedBuffers()).isEqualTo(1);
    assertThat(writer.mayFlushAged())
        .as("the consumer has a buffer of the channel to take: no tick need wake the producer")
        .isFalse();

    writer.flushAged();
    writer.flushAged();
    assertThat(channel.queuedBuffers())
        .as("a tick cuts no buffer while the consumer is busy with older records")
        .isEqualTo(1);

    assertThat(drain(gate)).containsExactly(big);
    assertThat(writer.mayFlushAged()).as("the consumer took everything: its turn").isTrue();
    writer.flushAged();
    assertThat(drain(gate))
        .as("aged while the consumer was busy: out at the first tick after it caught up")
        .containsExactly(big);
    assertThat(writer.mayFlushAged()).isFalse();
  }

  @Test
  void aProducerWithoutCreditIsUnavailableAndACreditReturnWakesIt() throws Exception {
    InputGate gate = gate(2, 1);
    RecordWriter<String> writer = writer(gate, 64);
    String big = "x".repeat(50); // one record fills most of a buffer
    int emitted = 0;
    while (writer.isAvailable()) {
      writer.emit(big, RecordWriter.NO_TIMESTAMP);
      emitted++;
      assertThat(emitted).isLessThan(100);
    }
    // The bound holds: never more queued buffers than credits.
    InputChannel channel = gate.getChannels().get(0);
    assertThat(channel.queuedBuffers()).isEqualTo(2);
    assertThat(((LocalResultSubpartition) writer.getSubpartition(0)).availableCredits()).isZero();

    InputGate.Polled polled = gate.pollNext();
    assertThat(polled.element()).isInstanceOf(Buffer.class);
    assertThat(writer.isAvailable()).isTrue();
    ((Buffer) polled.element()).recycle();
  }

  @Test
  void anEmitThatWaitsForCreditCountsItsWaitAsBackPressure() throws Exception {
    InputGate gate = gate(1, 1);
    RecordWriter<String> writer = writer(gate, 64);
    TimerGauge backPressure = new TimerGauge();
    writer.setBackPressureTimer(backPressure);
    String big = "x".repeat(50);
    while (writer.isAvailable()) {
      writer.emit(big, RecordWriter.NO_TIMESTAMP);
    }
    assertThat(backPressure.totalNanos(System.nanoTime())).as("no wait yet").isZero();

    Thread emitter =
        new Thread(
            // Fills the partly filled buffer and waits for the credit the queued one holds.
            () -> writer.emit(big, RecordWriter.NO_TIMESTAMP));
    producer.bindTo(emitter);
    emitter.start();
    org.awaitility.Awaitility.await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> backPressure.totalNanos(System.nanoTime()) > 0);

    ((Buffer) gate.pollNext().element()).recycle();
    emitter.join(10_000);
    assertThat(emitter.isAlive()).isFalse();
    long waited = backPressure.totalNanos(System.nanoTime());
    assertThat(waited).isPositive();
    assertThat(backPressure.totalNanos(System.nanoTime() + 1_000_000_000L))
        .as("the wait ended with the credit")
        .isEqualTo(waited);
  }

  @Test
  void aChannelTakenFastGetsMoreCreditsAndAChannelTakenSlowlyGivesThemBack() throws Exception {
    long[] now = {0};
    // 2 to 6 credits; a channel gets those its consumer takes in 300 ms at the last 100 ms's rate.
    InputGate gate =
        new InputGate(
            consumer, new CreditDepth(2, 6, Duration.ofMillis(300).toNanos()), () -> now[0]);
    gate.addChannel(0, "producer 0");
    InputChannel channel = gate.getChannels().get(0);
    RecordWriter<String> writer = writer(gate, 64);
    LocalResultSubpartition end = (LocalResultSubpartition) writer.getSubpartition(0);

    fillUntilUnavailable(writer);
    assertThat(channel.queuedBuffers()).isEqualTo(2);
    take(gate); // the first buffer taken starts the first period
    take(gate);
    fillUntilUnavailable(writer);
    assertThat(channel.queuedBuffers()).isEqualTo(2);

    now[0] = Duration.ofMillis(100).toNanos();
    take(gate); // 2 buffers in 100 ms: 6 in 300 ms
    assertThat(channel.creditDepth()).isEqualTo(6);
    fillUntilUnavailable(writer);
    assertThat(channel.queuedBuffers()).isEqualTo(6);
    assertThat(end.availableCredits()).isZero();

    now[0] = Duration.ofMillis(200).toNanos();
    take(gate); // 1 buffer in 100 ms: 3 in 300 ms, and a depth halves at most
    assertThat(channel.creditDepth()).isEqualTo(3);
    assertThat(writer.isAvailable()).as("5 buffers queued, 3 credits").isFalse();
    take(gate);
    take(gate);
    assertThat(writer.isAvailable()).as("3 queued").isFalse();
    take(gate);
    assertThat(writer.isAvailable()).isTrue();
    fillUntilUnavailable(writer);
    assertThat(channel.queuedBuffers()).isEqualTo(3);

    take(gate);
    take(gate);
    assertThat(end.isDrained()).isFalse();
    take(gate);
    assertThat(end.isDrained()).as("every buffer taken, every credit back").isTrue();
    assertThat(end.availableCredits()).isEqualTo(3);
  }

  @Test
  void aGateOfFixedDepthNeverChangesItsChannelsCredits() throws Exception {
    long[] now = {0};
    InputGate gate = new InputGate(consumer, CreditDepth.fixed(2), () -> now[0]++ * 1_000_000L);
    gate.addChannel(0, "producer 0");
    RecordWriter<String> writer = writer(gate, 64);
    for (int round = 0; round < 50; round++) {
      fillUntilUnavailable(writer);
      assertThat(gate.getChannels().get(0).queuedBuffers()).isEqualTo(2);
      take(gate);
      take(gate);
    }
    assertThat(gate.getChannels().get(0).creditDepth()).isEqualTo(2);
  }

  /** Emits records that each fill most of a 64-byte buffer until the writer has no credit. */
  private static void fillUntilUnavailable(RecordWriter<String> writer) {
    String big = "x".repeat(50);
    for (int emitted = 0; writer.isAvailable(); emitted++) {
      assertThat(emitted).isLessThan(100);
      writer.emit(big, RecordWriter.NO_TIMESTAMP);
    }
  }

  /** Takes the next buffer of the gate and recycles it. */
  private static void take(InputGate gate) {
    InputGate.Polled polled = gate.pollNext();
    assertThat(polled.element()).isInstanceOf(Buffer.class);
    ((Buffer) polled.element()).recycle();
  }

  @Test
  void aPriorityEventOvertakesQueuedBuffersAndReportsThemInOrder() throws Exception {
    InputGate gate = gate(10, 1);
    RecordWriter<String> writer = writer(gate, 64);
    for (int i = 0; i < 6; i++) {
      writer.emit("record-" + i + "-" + "y".repeat(40), RecordWriter.NO_TIMESTAMP);
    }
    writer.flushAll();
    InputChannel channel = gate.getChannels().get(0);
    List<ChannelStateEntry> queuedBefore = channel.captureQueued();
    assertThat(queuedBefore).isNotEmpty();

    List<ChannelStateEntry> overtaken =
        channel.addPriorityEventAndCaptureOvertaken(ChannelEvent.EndOfPartition.INSTANCE);

    assertThat(overtaken).hasSameSizeAs(queuedBefore);
    for (int i = 0; i < overtaken.size(); i++) {
      assertThat(overtaken.get(i)).isEqualTo(queuedBefore.get(i));
    }
    // The event comes out first, then the buffers it overtook.
    assertThat(gate.pollNext().element()).isInstanceOf(ChannelEvent.EndOfPartition.class);
  }

  @Test
  void priorityEventsKeepTheirOrderAheadOfQueuedBuffers() throws Exception {
    InputGate gate = gate(10, 1);
    RecordWriter<String> writer = writer(gate, 64);
    writer.emit("queued", RecordWriter.NO_TIMESTAMP);
    writer.flushAll();
    InputChannel channel = gate.getChannels().get(0);
    channel.addEvent(new ChannelEvent.CheckpointBarrier(1, 0, false, true));
    channel.addEvent(new ChannelEvent.CheckpointBarrier(2, 0, false, true));

    assertThat(((ChannelEvent.CheckpointBarrier) gate.pollNext().element()).checkpointId())
        .isEqualTo(1);
    assertThat(((ChannelEvent.CheckpointBarrier) gate.pollNext().element()).checkpointId())
        .isEqualTo(2);
    assertThat(drain(gate)).containsExactly("queued");
  }

  @Test
  void priorityEventsAreAnnouncedAndTakenOutOfTurnFromUnblockedChannels() throws Exception {
    InputGate gate = gate(10, 2);
    List<String> announced = new ArrayList<>();
    gate.setPriorityEventListener(() -> announced.add("priority"));
    InputChannel first = gate.getChannels().get(0);
    InputChannel second = gate.getChannels().get(1);
    RecordWriter<String> writer = writer(gate, 64);
    writer.emit("queued", RecordWriter.NO_TIMESTAMP);
    writer.flushAll();
    assertThat(gate.pollPriority()).as("no priority event yet").isNull();
    assertThat(announced).isEmpty();

    gate.block(first);
    first.addEvent(new ChannelEvent.CheckpointBarrier(1, 0, false, true));
    second.addEvent(new ChannelEvent.CheckpointBarrier(1, 0, false, true));
    second.addEvent(new ChannelEvent.CheckpointBarrier(2, 0, false, false)); // in order

    assertThat(announced).hasSize(2);
    InputGate.Polled polled = gate.pollPriority();
    assertThat(polled.channel()).as("the blocked channel keeps its event").isSameAs(second);
    assertThat(gate.pollPriority()).as("the aligned barrier waits its turn").isNull();
    gate.unblock(first);
    assertThat(gate.pollPriority().channel()).isSameAs(first);
    assertThat(gate.pollPriority()).isNull();
    // What is left comes out, and the emptied channels are not offered any more.
    assertThat(drain(gate)).containsExactlyInAnyOrder("queued", "<CheckpointBarrier>");
    assertThat(gate.pollNext()).isNull();
  }

  @Test
  void aConvertibleBarrierTakenInOrderIsReportedAndCannotBeConvertedAnyMore() throws Exception {
    InputGate gate = gate(10, 2);
    RecordWriter<String> writer =
        new RecordWriter<>(
            ends(gate), ChannelSelectors.broadcast(), STRINGS, 64, false, producer, () -> false);
    Outcomes outcomes = new Outcomes();
    writer.setBarrierListener(outcomes);
    writer.emit("before", RecordWriter.NO_TIMESTAMP);
    writer.broadcastConvertibleBarrier(new ChannelEvent.CheckpointBarrier(3, 0, false));
    writer.emit("after", RecordWriter.NO_TIMESTAMP);
    writer.flushAll();

    assertThat(drain(gate))
        .containsExactly(
            "before", "before", "<CheckpointBarrier>", "<CheckpointBarrier>", "after", "after");
    assertThat(outcomes.delivered).containsExactlyInAnyOrder(0, 1);
    writer.requestConversion(0, 3);
    writer.requestConversion(1, 3);
    assertThat(outcomes.converted).as("delivered barriers are not converted").isEmpty();
  }

  @Test
  void aConvertedBarrierOvertakesOnlyTheBuffersQueuedBeforeIt() throws Exception {
    InputGate gate = gate(10, 1);
    RecordWriter<String> writer = writer(gate, 64);
    List<String> before = new ArrayList<>();
    for (int i = 0; i < 4; i++) {
      String r = "before-" + i + "-" + "b".repeat(30);
      before.add(r);
      writer.emit(r, RecordWriter.NO_TIMESTAMP);
    }
    Outcomes outcomes = new Outcomes();
    writer.setBarrierListener(outcomes);
    writer.broadcastConvertibleBarrier(new ChannelEvent.CheckpointBarrier(5, 0, false));
    writer.emit("after", RecordWriter.NO_TIMESTAMP);
    writer.flushAll();
    InputChannel channel = gate.getChannels().get(0);
    List<ChannelStateEntry> queuedBefore = channel.captureQueued();

    writer.requestConversion(0, 5);
    assertThat(outcomes.converted).hasSize(1);
    List<ChannelStateEntry> overtaken = outcomes.converted.get(0);

    // Every buffer but the last ("after", sent behind the barrier) was overtaken, in order.
    assertThat(overtaken).hasSize(queuedBefore.size() - 1);
    for (int i = 0; i < overtaken.size(); i++) {
      assertThat(overtaken.get(i)).isEqualTo(queuedBefore.get(i));
    }
    InputGate.Polled first = gate.pollNext();
    assertThat(first.element()).isEqualTo(new ChannelEvent.CheckpointBarrier(5, 0, false, true));
    List<String> rest = new ArrayList<>(before);
    rest.add("after");
    assertThat(drain(gate)).isEqualTo(rest);
    assertThat(outcomes.delivered).as("a converted barrier is not delivered in order").isEmpty();
    writer.requestConversion(0, 5);
    assertThat(outcomes.converted).as("converted once").hasSize(1);
  }

  @Test
  void onlyAlignedCheckpointBarriersAreConvertible() {
    InputGate gate = gate(10, 1);
    InputChannel channel = gate.getChannels().get(0);
    assertThatThrownBy(
            () -> channel.addConvertibleBarrier(new ChannelEvent.CheckpointBarrier(1, 0, true)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("aligned");
    assertThat(channel.convertToUnaligned(1)).isNull();
  }

  @Test
  void watermarksAmongOvertakenBuffersAreCapturedAndReplayedInTheirPlace() throws Exception {
    InputGate source = gate(10, 1);
    RecordWriter<String> first = writer(source, 64);
    first.emit("a-" + "x".repeat(40), RecordWriter.NO_TIMESTAMP);
    first.broadcastEvent(new ChannelEvent.Watermark(10)); // flushes "a" first
    first.emit("b-" + "x".repeat(40), RecordWriter.NO_TIMESTAMP);
    first.broadcastEvent(ChannelEvent.WatermarkStatus.IDLE);
    first.broadcastEvent(new ChannelEvent.CancelCheckpointMarker(3)); // not channel state
    first.emit("c-" + "x".repeat(40), RecordWriter.NO_TIMESTAMP);
    first.flushAll();

    List<ChannelStateEntry> overtaken =
        source
            .getChannels()
            .get(0)
            .addPriorityEventAndCaptureOvertaken(
                new ChannelEvent.CheckpointBarrier(4, 0, false, true));
    assertThat(overtaken)
        .extracting(e -> e.getClass().getSimpleName())
        .containsExactly("Bytes", "Event", "Bytes", "Event", "Bytes");
    assertThat(overtaken.get(1))
        .isEqualTo(new ChannelStateEntry.Event(new ChannelEvent.Watermark(10)));
    assertThat(overtaken.get(3))
        .isEqualTo(new ChannelStateEntry.Event(ChannelEvent.WatermarkStatus.IDLE));

    InputGate restored = gate(10, 1);
    RecordWriter<String> second = writer(restored, 64);
    second.emit("new", RecordWriter.NO_TIMESTAMP);
    second.flushAll();
    restored.getChannels().get(0).prependForReplay(overtaken);
    assertThat(drain(restored))
        .containsExactly(
            "a-" + "x".repeat(40),
            "<Watermark>",
            "b-" + "x".repeat(40),
            "<WatermarkStatus>",
            "c-" + "x".repeat(40),
            "new");
  }

  @Test
  void theEventTimeAtTheCutIsNotReplayedIntoAChannel() {
    InputChannel channel = gate(10, 1).getChannels().get(0);
    assertThatThrownBy(
            () ->
                channel.prependForReplay(
                    List.of(
                        new ChannelStateEntry.Cut(
                            new io.weir.runtime.time.WatermarkValve.Position(
                                1, false, true, 1, false)))))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("the task's to restore");
  }

  @Test
  void capturedBuffersReplayInOrderBeforeNewInput() throws Exception {
    InputGate source = gate(10, 1);
    RecordWriter<String> first = writer(source, 64);
    List<String> inFlight = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      String r = "in-flight-" + i + "-" + "z".repeat(30);
      inFlight.add(r);
      first.emit(r, RecordWriter.NO_TIMESTAMP);
    }
    first.flushAll();
    List<ChannelStateEntry> captured = source.getChannels().get(0).captureQueued();

    // A fresh gate, as after a restore: new input arrives, then the captured data is replayed
    // ahead of it.
    InputGate restored = gate(10, 1);
    RecordWriter<String> second = writer(restored, 64);
    second.emit("new", RecordWriter.NO_TIMESTAMP);
    second.flushAll();
    restored.getChannels().get(0).prependForReplay(captured);

    List<String> expected = new ArrayList<>(inFlight);
    expected.add("new");
    assertThat(drain(restored)).isEqualTo(expected);
  }

  @Test
  void aBlockedChannelKeepsItsDataWhileOthersAreRead() throws Exception {
    InputGate gate = gate(10, 2);
    InputChannel slow = gate.getChannels().get(0);
    InputChannel fast = gate.getChannels().get(1);
    RecordWriter<String> toSlow =
        new RecordWriter<>(
            ends(slow), ChannelSelectors.forward(), STRINGS, 64, true, producer, () -> false);
    RecordWriter<String> toFast =
        new RecordWriter<>(
            ends(fast), ChannelSelectors.forward(), STRINGS, 64, true, producer, () -> false);
    gate.block(slow);
    toSlow.emit("s1", RecordWriter.NO_TIMESTAMP);
    toFast.emit("f1", RecordWriter.NO_TIMESTAMP);
    assertThat(drain(gate)).containsExactly("f1");
    assertThat(slow.queuedBuffers()).isEqualTo(1);
    gate.unblock(slow);
    assertThat(drain(gate)).containsExactly("s1");
  }

  @Test
  void timestampsTravelWithRecords() throws Exception {
    InputGate gate = gate(10, 1);
    RecordWriter<Long> writer =
        new RecordWriter<>(
            ends(gate),
            ChannelSelectors.forward(),
            TypeInformation.of(Long.class).createSerializer(),
            64,
            true,
            producer,
            () -> false);
    writer.emit(7L, 1234L);
    writer.emit(8L, RecordWriter.NO_TIMESTAMP);
    InputGate.Polled polled = gate.pollNext();
    RecordDeserializer d = polled.channel().getDeserializer();
    d.setNextBuffer((Buffer) polled.element());
    DataInputDeserializer view = new DataInputDeserializer();
    assertThat(d.nextRecord(view)).isTrue();
    assertThat(d.lastRecordHasTimestamp()).isTrue();
    assertThat(view.readLong()).isEqualTo(1234L);
    assertThat(view.readLong()).isEqualTo(7L);
  }
}

package io.weir.runtime.checkpoint;

import static org.assertj.core.api.Assertions.assertThat;

import io.weir.api.source.InputStatus;
import io.weir.api.typeutils.DataInputDeserializer;
import io.weir.api.typeutils.TypeSerializer;
import io.weir.api.typeutils.Types;
import io.weir.runtime.checkpoint.BarrierHandler.Alignment;
import io.weir.runtime.network.Buffer;
import io.weir.runtime.network.ChannelEvent;
import io.weir.runtime.network.ChannelEvent.CheckpointBarrier;
import io.weir.runtime.network.ChannelSelectors;
import io.weir.runtime.network.ChannelStateEntry;
import io.weir.runtime.network.CreditDepth;
import io.weir.runtime.network.InputChannel;
import io.weir.runtime.network.InputGate;
import io.weir.runtime.network.LocalResultSubpartition;
import io.weir.runtime.network.RecordDeserializer;
import io.weir.runtime.network.RecordWriter;
import io.weir.runtime.network.ResultSubpartition;
import io.weir.runtime.task.Waker;
import io.weir.runtime.time.WatermarkValve;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.LongSupplier;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.statistics.Statistics;

/**
 * An unaligned checkpoint restores exactly the pre-barrier cut. One consumer task reads 1–4 input
 * channels, each fed by its own producer (a source) through the real network classes: a {@link
 * RecordWriter} with 64-byte buffers, so records span buffers, and 1–3 credits per channel, so
 * output queues fill up. A seeded random schedule interleaves producers emitting and flushing, the
 * consumer reading one record at a time, each producer taking checkpoint {@value #N} (its "source
 * offset" is the number of records it emitted), and — for aligned-then-unaligned checkpoints — the
 * aligned timeout firing at a producer (converting its waiting barrier) or at the consumer ({@link
 * BarrierHandler#onAlignmentTimeout}). The consumer drives a real {@link BarrierHandler} and
 * records in-flight data with the real {@link InputChannelStateRecorder}, the way {@code
 * InputStreamTask} does.
 *
 * <p>The consumer's operator state is the list of records it processed per channel. Checked:
 *
 * <ul>
 *   <li>the cut: per channel, the snapshot's records followed by the recorded input bytes and the
 *       producer's overtaken output bytes (decoded by a fresh {@link RecordDeserializer}, with no
 *       partial record left over) are exactly the records the producer emitted before its barrier,
 *       in order — nothing lost, nothing twice;
 *   <li>restore: new channels and writers; the consumer starts from the snapshot, its channels
 *       replay the recorded bytes and the producers re-send their overtaken buffers, then emit from
 *       their offsets under another random schedule; the final state equals processing every record
 *       without any checkpoint (as does the run that took the checkpoint);
 *   <li>event time: every {@value #WATERMARK_EVERY}th record of a producer follows a watermark (the
 *       record's sequence number), and the consumer feeds the watermarks to a real {@link
 *       WatermarkValve} and notes, for every record it processes, the watermark its channel had
 *       then. Restored, the consumer puts its valve back where the unaligned snapshot had it, and
 *       each producer re-emits its last watermark before its first record (as a source restores its
 *       split watermark); every record must meet the watermark it met without any checkpoint, so
 *       the watermarks among the in-flight buffers must be replayed in their place.
 * </ul>
 *
 * <p>Seeds are fixed, so every run checks the same interleavings.
 */
class UnalignedCutPropertyTest {

  static final long N = 7;
  static final int BUFFER_SIZE = 64;
  static final TypeSerializer<String> STRINGS = Types.STRING.createSerializer();

  /** A producer emits a watermark before every record whose sequence number is a multiple. */
  static final int WATERMARK_EVERY = 4;

  /** The watermark a producer emitted last before its record {@code seq}, or none. */
  static long watermarkBefore(int seq) {
    return seq < WATERMARK_EVERY ? Long.MIN_VALUE : seq - seq % WATERMARK_EVERY;
  }

  /** "record@watermark": a record and the watermark its channel had when it was processed. */
  static String observed(String record, long watermark) {
    return record + "@" + (watermark == Long.MIN_VALUE ? "-" : Long.toString(watermark));
  }

  /** How the producers send their barriers and how the consumer aligns. */
  enum Kind {
    /** Overtaking barriers from the start (aligned-checkpoint-timeout 0). */
    UNALIGNED,
    /** Aligned barriers, converted when a producer's or the consumer's timeout fires. */
    ALIGNED_THEN_UNALIGNED
  }

  /**
   * @param kind how barriers travel
   * @param credits credits per channel
   * @param records per channel, how many records its producer emits
   * @param padding per channel, a salt for the records' lengths
   * @param steps the schedule of the checkpointed run (see {@link Run#step})
   * @param restoreSteps the schedule after the restore
   * @param lateTimeouts after the schedule, when every producer has sent its barrier
   *     (aligned-then-unaligned only): bit 4 set, the consumer reads up to its first barrier and
   *     its aligned timeout fires; then, bit c set, producer c's aligned timeout fires
   * @param replayInputFirst whether the consumer's recorded bytes are put back before the producers
   *     re-send their overtaken buffers (they race in a real restore)
   * @param remote whether the producers are in another process: their buffers are copied into the
   *     consumer's queue as the data plane delivers them, so what a barrier overtakes there is the
   *     consumer's to record (see {@link RemoteEnd})
   * @param clockStepsMs empty: every channel keeps {@code credits}; otherwise its depth changes
   *     between {@code credits} and {@code credits + 3} ({@link CreditDepth}, a 100 ms target), the
   *     consumer's clock advancing by these steps in turn at each buffer it takes, so depths grow
   *     and shrink (by credits handed back and withheld) while barriers are on their way
   */
  record Scenario(
      Kind kind,
      int credits,
      List<Integer> records,
      List<Integer> padding,
      List<Integer> steps,
      List<Integer> restoreSteps,
      int lateTimeouts,
      boolean replayInputFirst,
      boolean remote,
      List<Integer> clockStepsMs) {

    Scenario across(boolean remote) {
      return with(remote, clockStepsMs);
    }

    Scenario withClockSteps(List<Integer> clockStepsMs) {
      return with(remote, clockStepsMs);
    }

    private Scenario with(boolean remote, List<Integer> clockStepsMs) {
      return new Scenario(
          kind,
          credits,
          records,
          padding,
          steps,
          restoreSteps,
          lateTimeouts,
          replayInputFirst,
          remote,
          clockStepsMs);
    }

    /** The consumer's gate: fixed or changing depths, as {@link #clockStepsMs} says. */
    InputGate gate(Waker waker) {
      if (clockStepsMs.isEmpty()) {
        return new InputGate(waker, credits);
      }
      long[] now = {0};
      int[] next = {0};
      LongSupplier clock =
          () -> {
            now[0] += clockStepsMs.get(next[0]++ % clockStepsMs.size()) * 1_000_000L;
            return now[0];
          };
      return new InputGate(
          waker, new CreditDepth(credits, credits + 3, Duration.ofMillis(100).toNanos()), clock);
    }
  }

  @Provide
  Arbitrary<Scenario> scenarios() {
    Arbitrary<Integer> channels = Arbitraries.integers().between(1, 4);
    return channels.flatMap(
        k ->
            Combinators.combine(
                    Arbitraries.of(Kind.class),
                    Arbitraries.integers().between(1, 3),
                    Arbitraries.integers().between(0, 30).list().ofSize(k),
                    Arbitraries.integers().between(0, 40).list().ofSize(k),
                    Arbitraries.integers().between(0, 99).list().ofMaxSize(300),
                    Arbitraries.integers().between(0, 99).list().ofMaxSize(100),
                    Arbitraries.integers().between(0, 31),
                    Arbitraries.of(true, false))
                .as(
                    (kind, credits, records, padding, steps, restoreSteps, late, inputFirst) ->
                        new Scenario(
                            kind,
                            credits,
                            records,
                            padding,
                            steps,
                            restoreSteps,
                            late,
                            inputFirst,
                            false,
                            List.of()))
                .flatMap(s -> Arbitraries.of(true, false).map(s::across))
                .flatMap(
                    s ->
                        Arbitraries.integers()
                            .between(1, 120)
                            .list()
                            .ofMaxSize(6)
                            .map(s::withClockSteps)));
  }

  /** The record producer {@code channel} emits as its {@code seq}-th. */
  static String record(int channel, int seq, int padding) {
    return channel + "#" + seq + "#" + "x".repeat((seq * 7 + padding) % 41);
  }

  @Property(tries = 3000, seed = "5150")
  void snapshotPlusInFlightDataIsThePreBarrierCutAndRestoresIt(
      @ForAll("scenarios") Scenario scenario) throws Exception {
    Run run = new Run(scenario);
    run.play(scenario.steps(), true);
    run.finishAll(true);

    assertThat(run.aborted).as("no checkpoint aborted; %s", run.trace).isEmpty();
    assertThat(run.snapshot).as("checkpoint %d taken; %s", N, run.trace).isNotNull();
    assertThat(run.processed).as("the run itself processed every record once").isEqualTo(run.all);
    assertThat(run.observed)
        .as("each record met its channel's watermark; %s", run.trace)
        .isEqualTo(run.expectedObserved());
    if (run.unalignedSnapshot) {
      assertThat(run.inputState)
          .as("the unaligned checkpoint's input data is complete; %s", run.trace)
          .isNotNull();
    } else {
      assertThat(run.converted).as("a converted barrier makes the consumer unaligned").isFalse();
      assertThat(run.inputState).as("an aligned checkpoint records nothing").isNull();
      assertThat(run.outputState).allSatisfy(out -> assertThat(out).isEmpty());
    }
    Map<Integer, List<ChannelStateEntry>> inputState =
        run.inputState == null ? Map.of() : run.inputState;

    // The cut: snapshot + recorded input + overtaken output = the records before each barrier.
    int inFlightBytes = 0;
    int inFlightEvents = 0;
    for (int c = 0; c < run.channels; c++) {
      List<ChannelStateEntry> inFlight = new ArrayList<>(inputState.getOrDefault(c, List.of()));
      inFlight.addAll(run.outputState.get(c));
      for (ChannelStateEntry entry : inFlight) {
        if (entry instanceof ChannelStateEntry.Bytes bytes) {
          inFlightBytes += bytes.bytes().length;
        } else if (entry instanceof ChannelStateEntry.Event) {
          inFlightEvents++;
        }
      }
      List<String> cut = new ArrayList<>(run.snapshot.get(c));
      cut.addAll(decode(inFlight));
      assertThat(cut)
          .as("channel %d: snapshot and in-flight data are the pre-barrier cut; %s", c, run.trace)
          .isEqualTo(run.all.get(c).subList(0, run.offsets[c]));
    }

    // Restore and run to the end: the same final state as without any checkpoint.
    Run restored = run.restore(scenario.replayInputFirst());
    restored.play(scenario.restoreSteps(), false);
    restored.finishAll(false);
    assertThat(restored.processed)
        .as("restored from the snapshot and the in-flight data; %s", run.trace)
        .isEqualTo(run.all);
    assertThat(restored.observed)
        .as("restored, each record met the watermark it met without a checkpoint; %s", run.trace)
        .isEqualTo(run.expectedObserved());

    Statistics.label("unaligned").collect(run.unalignedSnapshot);
    Statistics.label("in-flight data").collect(inFlightBytes > 0);
    Statistics.label("watermarks in flight").collect(inFlightEvents > 0);
    Statistics.label("recorded input data").collect(!inputState.isEmpty());
    Statistics.label("converted at a producer, with overtaken data").collect(run.convertedWithData);
    Statistics.label("switched at the consumer's timeout").collect(run.consumerTimedOut);
    Statistics.label("converted at a producer while the consumer recorded that channel")
        .collect(run.convertedWhileRecorded);
    Statistics.label("overtaking barrier taken in the middle of a buffer").collect(run.midBuffer);
    Statistics.label("a channel's depth changed").collect(run.depthChanged());
    Statistics.label("unaligned").coverage(check -> check.check(true).percentage(p -> p > 40));
    Statistics.label("in-flight data").coverage(check -> check.check(true).percentage(p -> p > 20));
    Statistics.label("watermarks in flight")
        .coverage(check -> check.check(true).percentage(p -> p > 5));
    Statistics.label("recorded input data")
        .coverage(check -> check.check(true).percentage(p -> p > 5));
    Statistics.label("converted at a producer, with overtaken data")
        .coverage(check -> check.check(true).percentage(p -> p > 5));
    Statistics.label("switched at the consumer's timeout")
        .coverage(check -> check.check(true).percentage(p -> p > 5));
    Statistics.label("converted at a producer while the consumer recorded that channel")
        .coverage(check -> check.check(true).percentage(p -> p > 1));
    Statistics.label("overtaking barrier taken in the middle of a buffer")
        .coverage(check -> check.check(true).percentage(p -> p > 1));
    Statistics.label("a channel's depth changed")
        .coverage(check -> check.check(true).percentage(p -> p > 10));
  }

  /**
   * Decodes a channel's in-flight bytes with a fresh deserializer; no partial record may remain.
   */
  static List<String> decode(List<ChannelStateEntry> entries) throws IOException {
    RecordDeserializer deserializer = new RecordDeserializer();
    DataInputDeserializer view = new DataInputDeserializer();
    List<String> out = new ArrayList<>();
    for (ChannelStateEntry entry : entries) {
      if (!(entry instanceof ChannelStateEntry.Bytes bytes)) {
        continue; // event time: see the observed watermarks
      }
      deserializer.setNextBuffer(Buffer.wrap(bytes.bytes()));
      while (deserializer.nextRecord(view)) {
        out.add(STRINGS.deserialize(view));
      }
    }
    assertThat(deserializer.hasPartialRecord())
        .as("in-flight data ends in the middle of a record")
        .isFalse();
    return out;
  }

  // ---------------------------------------------------------------------------------------------

  /** One consumer with its producers, driven step by step on the test thread. */
  private static final class Run implements BarrierHandler.Actions {
    final Scenario scenario;
    final int channels;
    final InputGate gate;
    final List<RecordWriter<String>> writers = new ArrayList<>();
    final BarrierHandler handler;
    final InputChannelStateRecorder recorder;
    final DataInputDeserializer view = new DataInputDeserializer();
    final List<String> trace = new ArrayList<>();

    /** Per channel, every record its producer emits, in order. */
    final List<List<String>> all = new ArrayList<>();

    // Producers.
    final int[] emitted;
    final int[] offsets;
    final boolean[] triggered;
    final boolean[] ended;
    final boolean[] delivered;

    /** Per producer, what the conversion of its barrier overtook; null until it was converted. */
    final List<ChannelStateEntry>[] conversions;

    final boolean[] convertedAt;
    final List<List<ChannelStateEntry>> outputState = new ArrayList<>();
    boolean converted;
    boolean midBuffer;
    private boolean depthChanged;
    boolean convertedWithData;
    boolean convertedWhileRecorded;

    // Consumer.
    final List<List<String>> processed = new ArrayList<>();

    /** Per channel, each record processed with its channel's watermark then ({@link #observed}). */
    final List<List<String>> observed = new ArrayList<>();

    final WatermarkValve valve;
    List<List<String>> snapshotObserved;
    long watermarkAtSnapshot;
    InputChannel current;
    int closed;
    boolean alignmentStarted;
    boolean consumerTimedOut;
    List<List<String>> snapshot;
    boolean unalignedSnapshot;
    Map<Integer, List<ChannelStateEntry>> inputState;
    final List<Long> aborted = new ArrayList<>();

    Run(Scenario scenario) {
      this.scenario = scenario;
      this.channels = scenario.records().size();
      Waker waker = new Waker();
      this.gate = scenario.gate(waker);
      for (int c = 0; c < channels; c++) {
        InputChannel channel = gate.addChannel(0, "producer " + c);
        writers.add(
            new RecordWriter<>(
                new ResultSubpartition[] {
                  scenario.remote()
                      ? new RemoteEnd(channel, waker, scenario.credits())
                      : new LocalResultSubpartition(channel, waker)
                },
                ChannelSelectors.forward(),
                STRINGS,
                BUFFER_SIZE,
                false,
                waker,
                () -> false));
        List<String> records = new ArrayList<>();
        for (int i = 0; i < scenario.records().get(c); i++) {
          records.add(record(c, i, scenario.padding().get(c)));
        }
        all.add(records);
        processed.add(new ArrayList<>());
        observed.add(new ArrayList<>());
        outputState.add(new ArrayList<>());
      }
      this.emitted = new int[channels];
      this.offsets = new int[channels];
      this.triggered = new boolean[channels];
      this.ended = new boolean[channels];
      this.delivered = new boolean[channels];
      @SuppressWarnings("unchecked")
      List<ChannelStateEntry>[] none = new List[channels];
      this.conversions = none;
      this.convertedAt = new boolean[channels];
      Alignment alignment =
          scenario.kind() == Kind.UNALIGNED
              ? Alignment.UNALIGNED
              : Alignment.ALIGNED_THEN_UNALIGNED;
      this.handler = new BarrierHandler(channels, true, alignment, this);
      this.recorder = new InputChannelStateRecorder(gate.getChannels());
      this.valve =
          new WatermarkValve(
              channels,
              new WatermarkValve.Output() {
                @Override
                public void emitWatermark(long watermark) {}

                @Override
                public void emitWatermarkStatus(boolean idle) {}
              });
    }

    /** Every record with the watermark its channel has before it when nothing fails. */
    List<List<String>> expectedObserved() {
      List<List<String>> expected = new ArrayList<>();
      for (List<String> records : all) {
        List<String> channel = new ArrayList<>();
        for (int i = 0; i < records.size(); i++) {
          channel.add(observed(records.get(i), watermarkBefore(i)));
        }
        expected.add(channel);
      }
      return expected;
    }

    /** A run that starts from this one's checkpoint, on new channels. */
    Run restore(boolean replayInputFirst) {
      Run r = new Run(scenario);
      for (int c = 0; c < channels; c++) {
        r.processed.get(c).addAll(snapshot.get(c));
        r.observed.get(c).addAll(snapshotObserved.get(c));
        r.emitted[c] = offsets[c];
        r.triggered[c] = true; // no checkpoint after the restore
      }
      // As InputStreamTask.replayInputChannelState: event time back to the cut, then the entries.
      Map<Integer, List<ChannelStateEntry>> input = new java.util.TreeMap<>();
      if (inputState != null) {
        WatermarkValve.Position[] cut = new WatermarkValve.Position[channels];
        inputState.forEach(
            (c, entries) -> {
              assertThat(entries.get(0))
                  .as("channel %d starts at the cut", c)
                  .isInstanceOf(ChannelStateEntry.Cut.class);
              cut[c] = ((ChannelStateEntry.Cut) entries.get(0)).position();
              input.put(c, entries.subList(1, entries.size()));
            });
        assertThat(cut).as("every channel's event time at the cut; %s", trace).doesNotContainNull();
        r.valve.restore(cut);
        assertThat(r.valve.currentWatermark())
            .as("the task's event time is back where the snapshot had it")
            .isEqualTo(watermarkAtSnapshot);
      }
      if (replayInputFirst) {
        input.forEach((c, bytes) -> r.gate.getChannels().get(c).prependForReplay(bytes));
      }
      for (int c = 0; c < channels; c++) {
        r.writers.get(c).replay(0, outputState.get(c));
        if (offsets[c] >= WATERMARK_EVERY) {
          // A source restores its split watermark and emits it before its first record.
          r.writers.get(c).broadcastEvent(new ChannelEvent.Watermark(watermarkBefore(offsets[c])));
        }
      }
      if (!replayInputFirst) {
        input.forEach((c, bytes) -> r.gate.getChannels().get(c).prependForReplay(bytes));
      }
      return r;
    }

    void play(List<Integer> steps, boolean checkpointing) throws Exception {
      for (int pick : steps) {
        step(pick, checkpointing);
      }
    }

    /**
     * 0–39 a producer emits, 40–49 it flushes, 50–79 the consumer reads a record or an event, 80–84
     * it takes the overtaking barriers waiting at the head of its channels (the task's priority
     * mail, which runs between two records of a buffer), 85–89 a producer takes the checkpoint,
     * 90–94 the aligned timeout fires at a producer, 95–99 at the consumer. The producer is {@code
     * pick % channels}.
     */
    void step(int pick, boolean checkpointing) throws Exception {
      int p = pick % channels;
      if (pick < 40) {
        emit(p);
      } else if (pick < 50) {
        writers.get(p).flushAll();
      } else if (pick < 80) {
        consume();
      } else if (pick < 85) {
        consumePriority();
      } else if (!checkpointing) {
        return;
      } else if (pick < 90) {
        trigger(p);
      } else if (pick < 95) {
        producerTimeout(p);
      } else {
        consumerTimeout();
      }
    }

    /** The consumer's aligned timeout fires, if the handler had asked for it. */
    private void consumerTimeout() throws Exception {
      if (alignmentStarted) {
        trace.add("consumer timeout");
        consumerTimedOut |= handler.state() == BarrierHandler.State.ALIGNING;
        handler.onAlignmentTimeout(N);
      }
    }

    /**
     * Triggers every producer still due and fires the late timeouts, then runs producers and
     * consumer to the end.
     */
    void finishAll(boolean checkpointing) throws Exception {
      if (checkpointing) {
        for (int c = 0; c < channels; c++) {
          trigger(c);
        }
        if ((scenario.lateTimeouts() & 16) != 0) {
          // Read until the first barrier started the alignment, then let it time out.
          boolean more = true;
          while (more && handler.state() == BarrierHandler.State.IDLE && snapshot == null) {
            more = consume() != InputStatus.NOTHING_AVAILABLE;
          }
          consumerTimeout();
        }
        for (int c = 0; c < channels; c++) {
          if ((scenario.lateTimeouts() & (1 << c)) != 0) {
            producerTimeout(c);
          }
        }
      }
      while (closed < channels) {
        boolean progress = false;
        for (int c = 0; c < channels; c++) {
          while (emitted[c] < all.get(c).size() && writers.get(c).isAvailable()) {
            emit(c);
            progress = true;
          }
          if (emitted[c] == all.get(c).size() && !ended[c]) {
            writers.get(c).broadcastEvent(ChannelEvent.EndOfPartition.INSTANCE);
            ended[c] = true;
            trace.add("p" + c + " ends");
            progress = true;
          }
        }
        while (consume() != InputStatus.NOTHING_AVAILABLE) {
          progress = true;
        }
        assertThat(progress).as("stuck; %s", trace).isTrue();
      }
    }

    private void emit(int c) {
      if (emitted[c] < all.get(c).size() && writers.get(c).isAvailable()) {
        if (emitted[c] > 0 && emitted[c] % WATERMARK_EVERY == 0) {
          writers.get(c).broadcastEvent(new ChannelEvent.Watermark(emitted[c]));
        }
        writers.get(c).emit(all.get(c).get(emitted[c]++), RecordWriter.NO_TIMESTAMP);
        trace.add("p" + c + " emits " + (emitted[c] - 1));
      }
    }

    /** The producer takes checkpoint N, as a source does: offset, then the barrier. */
    private void trigger(int c) {
      if (triggered[c]) {
        return;
      }
      triggered[c] = true;
      offsets[c] = emitted[c];
      RecordWriter<String> writer = writers.get(c);
      if (scenario.kind() == Kind.UNALIGNED) {
        outputState.set(
            c, writer.broadcastPriorityEvent(new CheckpointBarrier(N, 0, false, true)).get(0));
      } else {
        writer.setBarrierListener(
            new RecordWriter.ChannelBarrierListener() {
              @Override
              public void delivered(int channel, long checkpointId) {
                delivered[c] = true;
              }

              @Override
              public void converted(
                  int channel, long checkpointId, List<ChannelStateEntry> overtaken) {
                conversions[c] = overtaken;
              }
            });
        writer.broadcastConvertibleBarrier(new CheckpointBarrier(N, 0, false));
      }
      trace.add("p" + c + " barrier at " + offsets[c]);
    }

    private void producerTimeout(int c) {
      if (scenario.kind() != Kind.ALIGNED_THEN_UNALIGNED || !triggered[c] || convertedAt[c]) {
        return;
      }
      boolean queuedAtConsumer = !gate.getChannels().get(c).captureQueued().isEmpty();
      writers.get(c).requestConversion(0, N);
      List<ChannelStateEntry> overtaken = conversions[c];
      if (overtaken == null) {
        assertThat(delivered[c]).as("not converted, so delivered; %s", trace).isTrue();
        return;
      }
      convertedAt[c] = true;
      converted = true;
      convertedWhileRecorded |= recorder.isRecording(c);
      convertedWithData |= scenario.remote() ? queuedAtConsumer : !overtaken.isEmpty();
      outputState.set(c, overtaken);
      trace.add("p" + c + " converts, overtaking " + overtaken.size() + " buffers");
    }

    /** As {@code InputStreamTask.handleEvent}: the recorder learns what the barrier overtook. */
    private void onBarrier(int c, CheckpointBarrier barrier) throws Exception {
      recorder.barrierArriving(c, barrier.checkpointId());
      try {
        handler.onBarrier(c, barrier);
      } finally {
        recorder.barrierHandled(c);
      }
    }

    /** {@code InputStreamTask.processPriorityEvents}: overtaking barriers, out of turn. */
    private void consumePriority() throws Exception {
      InputGate.Polled polled;
      while ((polled = gate.pollPriority()) != null) {
        int c = polled.channel().getChannelIndex();
        midBuffer |= current != null;
        trace.add("c" + c + " takes priority barrier" + (current != null ? " mid-buffer" : ""));
        onBarrier(c, (CheckpointBarrier) polled.element());
      }
    }

    /** One step of {@code InputStreamTask.processInput}: a record, or an event, or nothing. */
    /** Whether the consumer ever granted a channel other than {@link Scenario#credits}. */
    boolean depthChanged() {
      return depthChanged;
    }

    InputStatus consume() throws Exception {
      while (true) {
        if (current != null) {
          if (current.getDeserializer().nextRecord(view)) {
            String record = STRINGS.deserialize(view);
            int c = current.getChannelIndex();
            processed.get(c).add(record);
            observed.get(c).add(observed(record, valve.position(c).watermark()));
            return InputStatus.MORE_AVAILABLE;
          }
          current = null;
        }
        InputGate.Polled polled = gate.pollNext();
        if (polled == null) {
          return InputStatus.NOTHING_AVAILABLE;
        }
        int c = polled.channel().getChannelIndex();
        for (InputChannel channel : gate.getChannels()) {
          depthChanged |= channel.creditDepth() != scenario.credits();
        }
        if (polled.element() instanceof Buffer buffer) {
          recorder.onBuffer(c, buffer);
          polled.channel().getDeserializer().setNextBuffer(buffer);
          current = polled.channel();
        } else if (polled.element() instanceof CheckpointBarrier barrier) {
          trace.add("c" + c + " reads " + (barrier.unaligned() ? "unaligned " : "") + "barrier");
          onBarrier(c, barrier);
          return InputStatus.MORE_AVAILABLE;
        } else if (polled.element() instanceof ChannelEvent.Watermark watermark) {
          recorder.onEvent(c, watermark);
          valve.inputWatermark(c, watermark.timestamp());
          return InputStatus.MORE_AVAILABLE;
        } else if (polled.element() instanceof ChannelEvent.EndOfPartition) {
          trace.add("c" + c + " ends");
          closed++;
          handler.onChannelClosed(c);
          return InputStatus.MORE_AVAILABLE;
        }
      }
    }

    // ------------------------------------------------------------- BarrierHandler.Actions

    @Override
    public void block(int channel) {
      gate.block(gate.getChannels().get(channel));
    }

    @Override
    public void unblockAll() {
      gate.unblockAll();
    }

    @Override
    public void triggerCheckpoint(CheckpointBarrier barrier) {
      assertThat(snapshot).as("checkpoint taken twice; %s", trace).isNull();
      snapshot = new ArrayList<>();
      for (List<String> records : processed) {
        snapshot.add(List.copyOf(records));
      }
      snapshotObserved = new ArrayList<>();
      for (List<String> records : observed) {
        snapshotObserved.add(List.copyOf(records));
      }
      watermarkAtSnapshot = valve.currentWatermark();
      unalignedSnapshot = barrier.unaligned();
      if (barrier.unaligned() && handler.state() == BarrierHandler.State.UNALIGNED) {
        // As InputStreamTask.holdForChannelState.
        recorder.clear();
        WatermarkValve.Position[] cut = new WatermarkValve.Position[channels];
        for (int c = 0; c < channels; c++) {
          cut[c] = valve.position(c);
        }
        recorder.cut(cut);
      }
      trace.add("snapshot" + (barrier.unaligned() ? " unaligned" : ""));
    }

    @Override
    public void abortCheckpoint(long checkpointId, String reason) {
      aborted.add(checkpointId);
    }

    @Override
    public void alignmentStarted(long checkpointId) {
      alignmentStarted = true;
    }

    @Override
    public void startRecording(int channel) {
      recorder.start(channel);
    }

    @Override
    public void recordUnconsumed(int channel) {
      recorder.keepUnconsumed(channel, handler.currentCheckpointId());
    }

    @Override
    public void stopRecording(int channel) {
      recorder.stop(channel, handler.currentCheckpointId());
    }

    @Override
    public void channelStateComplete(long checkpointId) {
      inputState = recorder.take();
    }
  }

  /**
   * The data plane's producer end without the TCP in between, as {@code RemoteSubpartition} and the
   * consumer's receiver behave once connected: every buffer is copied into the consumer's queue at
   * once (nothing waits at the producer), an overtaking barrier or a conversion jumps the buffers
   * that wait in the consumer's queue and leaves their recording to the consumer, and credits and
   * deliveries come back as messages would.
   */
  static final class RemoteEnd implements ResultSubpartition, InputChannel.Upstream {
    private final InputChannel channel;
    private final Waker producer;
    private final java.util.concurrent.atomic.AtomicInteger credits;
    private volatile int fullCredit;
    private BarrierListener listener;

    RemoteEnd(InputChannel channel, Waker producer, int credits) {
      this.channel = channel;
      this.producer = producer;
      this.fullCredit = credits;
      this.credits = new java.util.concurrent.atomic.AtomicInteger(credits);
      channel.setUpstream(this);
    }

    @Override
    public boolean hasCredit() {
      return credits.get() > 0;
    }

    @Override
    public boolean isDrained() {
      return credits.get() >= fullCredit;
    }

    @Override
    public void addBuffer(Buffer buffer) {
      credits.decrementAndGet();
      channel.receiveBuffer(java.nio.ByteBuffer.wrap(buffer.memory(), 0, buffer.size()));
      buffer.recycle();
    }

    @Override
    public void addEvent(ChannelEvent event) {
      channel.addEvent(event);
    }

    @Override
    public List<ChannelStateEntry> addPriorityEvent(ChannelEvent event) {
      channel.receivePriorityBarrier((CheckpointBarrier) event);
      return List.of();
    }

    @Override
    public void addConvertibleBarrier(CheckpointBarrier barrier) {
      channel.addConvertibleBarrier(barrier);
    }

    @Override
    public void requestConversion(long checkpointId) {
      if (channel.convertKeepingOvertaken(checkpointId)) {
        listener.converted(checkpointId, List.of());
      }
    }

    @Override
    public void setBarrierListener(BarrierListener listener) {
      this.listener = listener;
    }

    @Override
    public void bufferConsumed() {
      if (credits.getAndIncrement() == 0) {
        producer.signal();
      }
    }

    @Override
    public void depthChanged(int delta) {
      fullCredit += delta;
      int before = credits.getAndAdd(delta);
      if (before <= 0 && before + delta > 0) {
        producer.signal();
      }
    }

    @Override
    public void barrierDelivered(long checkpointId) {
      if (listener != null) {
        listener.delivered(checkpointId);
      }
    }
  }
}

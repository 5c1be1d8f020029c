package io.weir.runtime.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.weir.api.DataStream;
import io.weir.api.JobClient;
import io.weir.api.OutputTag;
import io.weir.api.SingleOutputStreamOperator;
import io.weir.api.StreamEnvironment;
import io.weir.api.config.Configuration;
import io.weir.api.config.CoreOptions;
import io.weir.api.eventtime.Watermark;
import io.weir.api.eventtime.WatermarkGenerator;
import io.weir.api.eventtime.WatermarkOutput;
import io.weir.api.eventtime.WatermarkStrategy;
import io.weir.api.functions.AggregateFunction;
import io.weir.api.functions.Collector;
import io.weir.api.functions.KeyedProcessFunction;
import io.weir.api.source.Boundedness;
import io.weir.api.source.InputStatus;
import io.weir.api.source.ReaderOutput;
import io.weir.api.source.SimpleVersionedSerializer;
import io.weir.api.source.Source;
import io.weir.api.source.SourceReader;
import io.weir.api.source.SourceReaderContext;
import io.weir.api.tuple.Tuple2;
import io.weir.api.typeutils.Types;
import io.weir.api.windowing.assigners.TumblingEventTimeWindows;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Watermarks in running jobs: they travel in-band from the sources, a task's watermark is the
 * minimum over its inputs, an idle input stops holding it back, windows fire on them, and late
 * records reach the side output over the network.
 */
@Timeout(60)
class WatermarkJobTest {

  /**
   * An unbounded source whose records the test pushes: one split, the record is its own timestamp.
   * Copies of the source share the queue under the source's id.
   */
  static final class PushSource implements Source<Long, Integer> {
    private static final long serialVersionUID = 1L;
    static final Map<String, ConcurrentLinkedQueue<Long>> QUEUES = new ConcurrentHashMap<>();
    static final Map<String, CompletableFuture<Void>> SIGNALS = new ConcurrentHashMap<>();

    private final String id = UUID.randomUUID().toString();

    PushSource() {
      QUEUES.put(id, new ConcurrentLinkedQueue<>());
      SIGNALS.put(id, new CompletableFuture<>());
    }

    void push(long value) {
      QUEUES.get(id).add(value);
      SIGNALS.put(id, new CompletableFuture<>()).complete(null);
    }

    @Override
    public Boundedness getBoundedness() {
      return Boundedness.CONTINUOUS_UNBOUNDED;
    }

    @Override
    public List<Integer> createSplits(int parallelism) {
      return List.of(0);
    }

    @Override
    public SourceReader<Long, Integer> createReader(SourceReaderContext context) {
      return new SourceReader<>() {
        private CompletableFuture<Void> available = CompletableFuture.completedFuture(null);
        private boolean hasSplit;

        @Override
        public void addSplits(List<Integer> splits) {
          hasSplit = !splits.isEmpty();
        }

        @Override
        public InputStatus pollNext(ReaderOutput<Long> output) {
          if (!hasSplit) {
            available = new CompletableFuture<>(); // a subtask without the split never reads
            return InputStatus.NOTHING_AVAILABLE;
          }
          CompletableFuture<Void> signal = SIGNALS.get(id);
          Long next = QUEUES.get(id).poll();
          if (next == null) {
            available = signal;
            return InputStatus.NOTHING_AVAILABLE;
          }
          output.collect(next);
          return InputStatus.MORE_AVAILABLE;
        }

        @Override
        public CompletableFuture<Void> isAvailable() {
          return available;
        }

        @Override
        public List<Integer> snapshotState(long checkpointId) {
          return List.of(0);
        }
      };
    }

    @Override
    public SimpleVersionedSerializer<Integer> getSplitSerializer() {
      return new SimpleVersionedSerializer<>() {
        @Override
        public int getVersion() {
          return 1;
        }

        @Override
        public byte[] serialize(Integer split) {
          return new byte[0];
        }

        @Override
        public Integer deserialize(int version, byte[] serialized) {
          return 0;
        }
      };
    }
  }

  /**
   * Registers an event-time timer at {@code value + 10} for every value ending in 0, and reports
   * each firing with the watermark it fired at.
   */
  static final class TimerAtValuePlusTen
      extends KeyedProcessFunction<Long, Long, Tuple2<Long, Long>> {
    private static final long serialVersionUID = 1L;

    @Override
    public void processElement(Long value, Context ctx, Collector<Tuple2<Long, Long>> out) {
      if (value % 10 == 0) {
        ctx.timerService().registerEventTimeTimer(value + 10);
      }
    }

    @Override
    public void onTimer(long timestamp, OnTimerContext ctx, Collector<Tuple2<Long, Long>> out) {
      out.collect(Tuple2.of(timestamp, ctx.timerService().currentWatermark()));
    }
  }

  private static StreamEnvironment env() {
    Configuration conf = Configuration.fromSystemProperties();
    conf.set(CoreOptions.AUTO_WATERMARK_INTERVAL, Duration.ofMillis(5));
    StreamEnvironment env = StreamEnvironment.create(conf);
    env.setParallelism(1);
    return env;
  }

  @Test
  void theWatermarkIsTheMinimumOverInputsAndMovesOnPastAnIdleOne() throws Exception {
    StreamEnvironment env = env();
    PushSource fast = new PushSource();
    PushSource slow = new PushSource();
    WatermarkStrategy<Long> monotonous =
        WatermarkStrategy.<Long>forMonotonousTimestamps().withTimestampAssigner((v, ts) -> v);
    DataStream<Long> a = env.fromSource(fast, monotonous, "fast", Types.LONG);
    DataStream<Long> b =
        env.fromSource(slow, monotonous.withIdleness(Duration.ofSeconds(1)), "slow", Types.LONG);
    CollectSink<Tuple2<Long, Long>> sink = new CollectSink<>();
    a.union(b)
        .keyBy(v -> 0L, Types.LONG)
        .process(new TimerAtValuePlusTen())
        .returns(Types.TUPLE(Types.LONG, Types.LONG))
        .sinkTo(sink);
    JobClient job = env.executeAsync("watermark-minimum");
    try {
      fast.push(100); // watermark 99
      slow.push(50); // watermark 49; timer at 60
      slow.push(70); // watermark 69: the minimum passes 60
      await().atMost(Duration.ofSeconds(20)).until(() -> !sink.results().isEmpty());
      // With the maximum over the inputs the timer would have fired at 99.
      assertThat(sink.results().get(0)).isEqualTo(Tuple2.of(60L, 69L));

      // "slow" stops at 69; "fast" goes on. After the idle timeout "slow" no longer holds event
      // time back: the timers at 80 and 110 (of 70 and 100) and at 210 fire at fast's watermark.
      fast.push(200);
      fast.push(260);
      await()
          .atMost(Duration.ofSeconds(20))
          .until(() -> sink.results().stream().anyMatch(t -> t.f0 == 210L));
      List<Tuple2<Long, Long>> fired = sink.results();
      assertThat(fired).extracting(t -> t.f0).containsExactly(60L, 80L, 110L, 210L);
      assertThat(fired.get(3).f1).isBetween(210L, 259L);
    } finally {
      job.cancel().get();
    }
  }

  @Test
  void aSourceSubtaskWithoutSplitsDoesNotHoldEventTimeBack() throws Exception {
    StreamEnvironment env = env();
    PushSource oneSplit = new PushSource();
    CollectSink<Tuple2<Long, Long>> sink = new CollectSink<>();
    env.fromSource(
            oneSplit,
            WatermarkStrategy.<Long>forMonotonousTimestamps().withTimestampAssigner((v, ts) -> v),
            "one split",
            Types.LONG)
        .setParallelism(2) // subtask 1 gets no split: it is idle from the start
        .keyBy(v -> 0L, Types.LONG)
        .process(new TimerAtValuePlusTen())
        .returns(Types.TUPLE(Types.LONG, Types.LONG))
        .sinkTo(sink);
    JobClient job = env.executeAsync("source-without-splits");
    try {
      oneSplit.push(10);
      oneSplit.push(30);
      await().atMost(Duration.ofSeconds(20)).until(() -> !sink.results().isEmpty());
      assertThat(sink.results().get(0)).isEqualTo(Tuple2.of(20L, 29L));
    } finally {
      job.cancel().get();
    }
  }

  /** Emits a watermark at every record's timestamp: deterministic event time for a test. */
  static final class EveryRecord implements WatermarkGenerator<Long> {
    @Override
    public void onEvent(Long event, long eventTimestamp, WatermarkOutput output) {
      output.emitWatermark(new Watermark(eventTimestamp));
    }

    @Override
    public void onPeriodicEmit(WatermarkOutput output) {}
  }

  /** Counts per key and window. */
  static final class Count implements AggregateFunction<Long, Long, Long> {
    private static final long serialVersionUID = 1L;

    @Override
    public Long createAccumulator() {
      return 0L;
    }

    @Override
    public Long add(Long value, Long accumulator) {
      return accumulator + 1;
    }

    @Override
    public Long getResult(Long accumulator) {
      return accumulator;
    }

    @Override
    public Long merge(Long a, Long b) {
      return a + b;
    }
  }

  private static final OutputTag<Long> LATE = new OutputTag<>("late") {};

  @Test
  void windowsFireOnWatermarksAndLateRecordsReachTheSideOutput() throws Exception {
    StreamEnvironment env = env();
    DataStream<Long> events =
        env.fromElements(1L, 4L, 12L, 3L, 15L, 27L, 9L, 28L)
            .assignTimestampsAndWatermarks(
                WatermarkStrategy.<Long>forGenerator(ctx -> new EveryRecord())
                    .withTimestampAssigner((v, ts) -> v));
    SingleOutputStreamOperator<Long> counts =
        events
            .keyBy(v -> 0L, Types.LONG)
            .window(TumblingEventTimeWindows.of(Duration.ofMillis(10)))
            .sideOutputLateData(LATE)
            .aggregate(new Count());
    CollectSink<Long> main = new CollectSink<>();
    CollectSink<Long> late = new CollectSink<>();
    counts.sinkTo(main);
    counts.getSideOutput(LATE).rebalance().sinkTo(late).setParallelism(2);

    env.execute("late-records");

    // [0,10): 1, 4 (3 and 9 arrive after watermark 12: late); [10,20): 12, 15; [20,30): 27, 28
    assertThat(main.results()).containsExactly(2L, 2L, 2L);
    assertThat(late.results()).containsExactlyInAnyOrder(3L, 9L);
  }

  /** Emits, for every element, the watermark its process function sees. */
  static final class SeenWatermark extends io.weir.api.functions.ProcessFunction<Long, Long> {
    private static final long serialVersionUID = 1L;

    @Override
    public void processElement(Long value, Context ctx, Collector<Long> out) {
      out.collect(ctx.timerService().currentWatermark());
    }
  }

  @Test
  void aWatermarkFollowsTheRecordItCameFromAndReachesProcessFunctions() throws Exception {
    StreamEnvironment env = env();
    CollectSink<Long> seen = new CollectSink<>();
    env.fromElements(1L, 5L, 9L)
        .assignTimestampsAndWatermarks(
            WatermarkStrategy.<Long>forGenerator(ctx -> new EveryRecord())
                .withTimestampAssigner((v, ts) -> v))
        .process(new SeenWatermark())
        .sinkTo(seen);
    env.execute("watermark-order");
    // Each element sees the watermark of the element before it, not its own.
    assertThat(seen.results()).containsExactly(Long.MIN_VALUE, 1L, 5L);
  }

  @Test
  void windowedCountsOverOutOfOrderDataAtParallelismTwo() throws Exception {
    StreamEnvironment env = env();
    env.setParallelism(2);
    long n = 20_000;
    SingleOutputStreamOperator<Tuple2<Long, Long>> counts =
        env.fromSequence(0, n - 1)
            .assignTimestampsAndWatermarks(
                WatermarkStrategy.<Long>forBoundedOutOfOrderness(Duration.ofMillis(50))
                    .withTimestampAssigner((v, ts) -> eventTime(v)))
            .keyBy(v -> v % 7, Types.LONG)
            .window(TumblingEventTimeWindows.of(Duration.ofMillis(100)))
            .reduce((x, y) -> x + y)
            .map(sum -> Tuple2.of(sum % 7, sum))
            .returns(Types.TUPLE(Types.LONG, Types.LONG));
    CollectSink<Tuple2<Long, Long>> sink = new CollectSink<>();
    counts.sinkTo(sink);
    env.execute("out-of-order-windows");

    Map<Long, Long> expectedSums = new TreeMap<>();
    for (long v = 0; v < n; v++) {
      expectedSums.merge(v % 7 * 1_000_000 + Math.floorDiv(eventTime(v), 100), v, Long::sum);
    }
    assertThat(sink.results()).hasSize(expectedSums.size());
    assertThat(sink.results().stream().mapToLong(t -> t.f1).sorted().boxed().toList())
        .isEqualTo(expectedSums.values().stream().sorted().toList());
  }

  /** Out of order by up to 20 ms, within the 50 ms bound: no record is late. */
  static long eventTime(long v) {
    return v - (v * 7919 % 21);
  }
}

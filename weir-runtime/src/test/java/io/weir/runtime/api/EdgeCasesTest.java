package io.weir.runtime.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.awaitility.Awaitility.await;

import io.weir.api.DataStream;
import io.weir.api.JobClient;
import io.weir.api.JobExecutionException;
import io.weir.api.StreamEnvironment;
import io.weir.api.functions.Collector;
import io.weir.api.functions.KeyedProcessFunction;
import io.weir.api.functions.OpenContext;
import io.weir.api.functions.ProcessFunction;
import io.weir.api.source.Boundedness;
import io.weir.api.source.InputStatus;
import io.weir.api.source.ReaderOutput;
import io.weir.api.source.SimpleVersionedSerializer;
import io.weir.api.source.Source;
import io.weir.api.source.SourceReader;
import io.weir.api.source.SourceReaderContext;
import io.weir.api.state.ValueState;
import io.weir.api.state.ValueStateDescriptor;
import io.weir.api.typeutils.Types;
import io.weir.runtime.task.TaskFailureException;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Plans and data that are legal (and common enough) in Flink: a stream unioned with itself, records
 * larger than a network buffer, event timestamps, a failing source.
 */
@Timeout(30)
@SuppressWarnings("SameNameButDifferent") // the Context of each function class
public class EdgeCasesTest {

  /** Waits for a bounded job; cancels it and fails the test when it does not end in time. */
  static void awaitEnd(JobClient client, int seconds) throws Exception {
    try {
      client.getJobExecutionResult().get(seconds, TimeUnit.SECONDS);
    } catch (TimeoutException e) {
      client.cancel().get(10, TimeUnit.SECONDS);
      throw new AssertionError("the bounded job did not finish within " + seconds + " s", e);
    }
  }

  @Test
  void unionOfAStreamWithItselfDeliversEveryElementTwice() throws Exception {
    // Flink: "If you union a data stream with itself you will get each element twice."
    StreamEnvironment env = StreamEnvironment.create();
    env.setParallelism(2);
    CollectSink<Long> sink = new CollectSink<>();
    DataStream<Long> numbers = env.fromSequence(1, 10).map(x -> x * 10);
    numbers.union(numbers).map(x -> x + 1).sinkTo(sink);
    awaitEnd(env.executeAsync("self-union"), 5);

    List<Long> expected = new ArrayList<>();
    for (long i = 1; i <= 10; i++) {
      expected.add(i * 10 + 1);
      expected.add(i * 10 + 1);
    }
    assertThat(sink.results()).containsExactlyInAnyOrderElementsOf(expected);
  }

  @ParameterizedTest
  @ValueSource(ints = {1, 3})
  void recordsLargerThanANetworkBufferCrossTheNetworkIntact(int parallelism) throws Exception {
    StreamEnvironment env = StreamEnvironment.create();
    env.setParallelism(parallelism);
    CollectSink<String> sink = new CollectSink<>();
    // Sizes around and far beyond one 32 KiB buffer, and beyond 4 buffers (the credits).
    List<Integer> sizes = List.of(0, 1, 3, 4, 5, 32 * 1024 - 8, 32 * 1024, 70_000, 300_000, 17);
    env.fromCollection(sizes)
        .map(n -> text(n))
        .keyBy(s -> s.length() % 5, Types.INT)
        .map(s -> s.length() + ":" + s.hashCode())
        .sinkTo(sink);
    env.execute("big-records");

    List<String> expected = new ArrayList<>();
    for (int n : sizes) {
      String s = text(n);
      expected.add(s.length() + ":" + s.hashCode());
    }
    assertThat(sink.results()).containsExactlyInAnyOrderElementsOf(expected);
  }

  static String text(int length) {
    StringBuilder sb = new StringBuilder(length);
    for (int i = 0; i < length; i++) {
      sb.append((char) ('a' + (i * 7 + length) % 26));
    }
    return sb.toString();
  }

  /** Emits the given values, each with timestamp {@code value * 10}, from one split. */
  public static final class TimestampedSource implements Source<Long, Integer> {
    private static final long serialVersionUID = 1L;
    private final long[] values;

    public TimestampedSource(long... values) {
      this.values = values.clone();
    }

    @Override
    public Boundedness getBoundedness() {
      return Boundedness.BOUNDED;
    }

    @Override
    public List<Integer> createSplits(int parallelism) {
      return List.of(0);
    }

    @Override
    public SourceReader<Long, Integer> createReader(SourceReaderContext context) {
      return new SourceReader<>() {
        private final List<Integer> positions = new ArrayList<>();

        @Override
        public void addSplits(List<Integer> splits) {
          positions.addAll(splits);
        }

        @Override
        public InputStatus pollNext(ReaderOutput<Long> output) {
          if (positions.isEmpty() || positions.get(0) >= values.length) {
            return InputStatus.END_OF_INPUT;
          }
          long v = values[positions.get(0)];
          output.collect(v, v * 10);
          positions.set(0, positions.get(0) + 1);
          return InputStatus.MORE_AVAILABLE;
        }

        @Override
        public List<Integer> snapshotState(long checkpointId) {
          return List.copyOf(positions);
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
          return ByteBuffer.allocate(4).putInt(split).array();
        }

        @Override
        public Integer deserialize(int version, byte[] serialized) {
          return ByteBuffer.wrap(serialized).getInt();
        }
      };
    }
  }

  /** Emits {@code value@timestamp}, the timestamp as the function sees it. */
  public static final class ShowTimestamp extends ProcessFunction<Long, String> {
    private static final long serialVersionUID = 1L;

    @Override
    public void processElement(Long value, Context ctx, Collector<String> out) {
      out.collect(value + "@" + ctx.timestamp());
    }
  }

  /** Registers an event-time timer at the element's timestamp + 5; emits from onTimer. */
  public static final class TimerAtTimestamp extends KeyedProcessFunction<Long, Long, Long> {
    private static final long serialVersionUID = 1L;

    @Override
    public void processElement(Long value, Context ctx, Collector<Long> out) {
      ctx.timerService().registerEventTimeTimer(ctx.timestamp() + 5);
      out.collect(value);
    }

    @Override
    public void onTimer(long timestamp, OnTimerContext ctx, Collector<Long> out) {
      out.collect(-timestamp);
    }
  }

  @ParameterizedTest
  @ValueSource(ints = {1, 2})
  void eventTimestampsTravelWithTheRecords(int parallelism) throws Exception {
    StreamEnvironment env = StreamEnvironment.create();
    env.setParallelism(parallelism);
    CollectSink<String> sink = new CollectSink<>();
    env.fromSource(new TimestampedSource(1, 2, 3, 4, 5, 6), "Timestamped", Types.LONG)
        .map(x -> x * 1) // chained: keeps the timestamp
        .keyBy(x -> x % 2)
        .process(new TimerAtTimestamp()) // output keeps the element's / timer's timestamp
        .rebalance()
        .process(new ShowTimestamp())
        .sinkTo(sink);
    env.execute("timestamps");

    List<String> expected = new ArrayList<>();
    for (long v = 1; v <= 6; v++) {
      expected.add(v + "@" + v * 10); // the element, with its timestamp
      expected.add(-(v * 10 + 5) + "@" + (v * 10 + 5)); // the timer, with the timer's time
    }
    assertThat(sink.results()).containsExactlyInAnyOrderElementsOf(expected);
  }

  /**
   * Flink: records emitted from a processing-time timer carry no timestamp (the collector's
   * timestamp is erased), while {@code ctx.timestamp()} in onTimer is the timer's time.
   */
  public static final class EmitOnProcessingTimer extends KeyedProcessFunction<Long, Long, Long> {
    private static final long serialVersionUID = 1L;
    private transient ValueState<Boolean> registered;

    @Override
    public void open(OpenContext openContext) {
      registered = getRuntimeContext().getState(new ValueStateDescriptor<>("r", Types.BOOLEAN));
    }

    @Override
    public void processElement(Long value, Context ctx, Collector<Long> out) throws Exception {
      if (registered.value() == null) {
        registered.update(true);
        ctx.timerService()
            .registerProcessingTimeTimer(ctx.timerService().currentProcessingTime() + 5);
      }
    }

    @Override
    public void onTimer(long timestamp, OnTimerContext ctx, Collector<Long> out) {
      if (ctx.timestamp() == null || ctx.timestamp() != timestamp) {
        throw new IllegalStateException("ctx.timestamp() " + ctx.timestamp() + " != " + timestamp);
      }
      out.collect(ctx.getCurrentKey());
    }
  }

  @Test
  void recordsEmittedFromAProcessingTimeTimerHaveNoTimestamp() throws Exception {
    StreamEnvironment env = StreamEnvironment.create();
    env.setParallelism(1);
    CollectSink<String> sink = new CollectSink<>();
    env.fromSource(UnboundedSource.emitting(1, 1), "One")
        .keyBy(x -> x)
        .process(new EmitOnProcessingTimer())
        .process(new ShowTimestamp())
        .sinkTo(sink);
    JobClient client = env.executeAsync("processing-timer-timestamp");
    try {
      await()
          .atMost(Duration.ofSeconds(5))
          .until(() -> sink.size() > 0 || client.getJobExecutionResult().isDone());
    } finally {
      client.cancel().get(10, TimeUnit.SECONDS);
    }
    assertThat(sink.results()).containsExactly("0@null");
  }

  /** A source whose reader fails on its first poll. */
  public static final class FailingSource implements Source<Long, Integer> {
    private static final long serialVersionUID = 1L;

    @Override
    public Boundedness getBoundedness() {
      return Boundedness.BOUNDED;
    }

    @Override
    public List<Integer> createSplits(int parallelism) {
      return List.of(0);
    }

    @Override
    public SourceReader<Long, Integer> createReader(SourceReaderContext context) {
      return new SourceReader<>() {
        @Override
        public void addSplits(List<Integer> splits) {}

        @Override
        public InputStatus pollNext(ReaderOutput<Long> output) {
          throw new IllegalStateException("the source broke");
        }

        @Override
        public List<Integer> snapshotState(long checkpointId) {
          return List.of();
        }
      };
    }

    @Override
    public SimpleVersionedSerializer<Integer> getSplitSerializer() {
      return new TimestampedSource().getSplitSerializer();
    }
  }

  @Test
  void aFailingSourceFailsTheJobNamingTheSource() {
    StreamEnvironment env = StreamEnvironment.create();
    env.setParallelism(1);
    env.fromSource(new FailingSource(), "Broken Source", Types.LONG)
        .keyBy(x -> x)
        .map(x -> x)
        .sinkTo(new CollectSink<>());

    Throwable thrown = catchThrowable(() -> env.execute("failing-source"));

    assertThat(thrown).isInstanceOf(JobExecutionException.class);
    assertThat(thrown).hasRootCauseMessage("the source broke");
    Throwable t = thrown;
    while (t != null && !(t instanceof TaskFailureException)) {
      t = t.getCause();
    }
    assertThat(t).isInstanceOf(TaskFailureException.class);
    assertThat(((TaskFailureException) t).getOperatorName()).isEqualTo("Broken Source");
  }
}

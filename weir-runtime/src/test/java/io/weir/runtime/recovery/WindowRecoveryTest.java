package io.weir.runtime.recovery;

import static io.weir.runtime.recovery.RecoveryTestSupport.awaitCoveringCheckpoint;
import static io.weir.runtime.recovery.RecoveryTestSupport.jobDir;
import static org.assertj.core.api.Assertions.assertThat;

import io.weir.api.DataStream;
import io.weir.api.JobClient;
import io.weir.api.JobExecutionResult;
import io.weir.api.RestartStrategy;
import io.weir.api.StreamEnvironment;
import io.weir.api.config.Configuration;
import io.weir.api.config.CoreOptions;
import io.weir.api.eventtime.WatermarkStrategy;
import io.weir.api.functions.AggregateFunction;
import io.weir.api.functions.Collector;
import io.weir.api.functions.KeyedProcessFunction;
import io.weir.api.functions.RichMapFunction;
import io.weir.api.functions.windowing.ProcessWindowFunction;
import io.weir.api.sink.SinkWriter;
import io.weir.api.sink.TwoPhaseCommitSink;
import io.weir.api.source.SimpleVersionedSerializer;
import io.weir.api.typeutils.Types;
import io.weir.api.windowing.assigners.EventTimeSessionWindows;
import io.weir.api.windowing.assigners.TumblingEventTimeWindows;
import io.weir.api.windowing.windows.TimeWindow;
import io.weir.runtime.recovery.RecoveryTestSupport.CountingSource;
import io.weir.runtime.testing.matrix.TestMatrix;
import java.io.Serializable;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Event-time windows and timers across failures at random points: out-of-order data with a known
 * answer, a job that fails twice at a random record (seeded; the seed is in every message) after a
 * checkpoint covering what came before, and an exactly-once sink whose committed output must be the
 * answer, each result exactly once. Runs on the heap here and on RocksDB in weir-state-rocksdb.
 */
@Timeout(120)
@TestMatrix
class WindowRecoveryTest {

  private static final int KEYS = 10;

  /** Records per source split (two splits, one per subtask). */
  private static final long PER_SPLIT = 15_000;

  /** Out of order by up to 20 ms, within the 50 ms bound: no record is late. */
  static long eventTime(long v) {
    return v - (v * 7919 % 21);
  }

  /** Blocks of 1000 values, 500 ms apart in event time: one session per key and block. */
  static long sessionTime(long v) {
    return eventTime(v) + (v / 1000) * 500;
  }

  // ------------------------------------------------------------------ fixtures

  /** Fails its subtask 0 after the armed number of records, once per arming. */
  static final class FailAfter extends RichMapFunction<Long, Long> {
    private static final long serialVersionUID = 1L;
    static final Map<String, AtomicLong> COUNTDOWNS = new ConcurrentHashMap<>();
    private final String id = UUID.randomUUID().toString();

    FailAfter() {
      COUNTDOWNS.put(id, new AtomicLong());
    }

    void arm(long records) {
      COUNTDOWNS.get(id).set(records);
    }

    @Override
    public Long map(Long value) {
      if (getRuntimeContext().getIndexOfThisSubtask() == 0
          && COUNTDOWNS.get(id).get() > 0
          && COUNTDOWNS.get(id).decrementAndGet() == 0) {
        throw new IllegalStateException("injected failure");
      }
      return value;
    }
  }

  /** Transactions in memory, committed idempotently: what an exactly-once sink has written. */
  static final class Store {
    static final Map<String, Store> STORES = new ConcurrentHashMap<>();
    final Map<String, List<String>> open = new ConcurrentHashMap<>();
    final Map<String, Boolean> committedIds = new ConcurrentHashMap<>();
    final ConcurrentLinkedQueue<String> committed = new ConcurrentLinkedQueue<>();
  }

  /** Transaction handles are their ids. */
  static final class IdSerializer implements SimpleVersionedSerializer<String>, Serializable {
    private static final long serialVersionUID = 1L;

    @Override
    public int getVersion() {
      return 1;
    }

    @Override
    public byte[] serialize(String id) {
      return id.getBytes(StandardCharsets.UTF_8);
    }

    @Override
    public String deserialize(int version, byte[] serialized) {
      return new String(serialized, StandardCharsets.UTF_8);
    }
  }

  /** Commits into a {@link Store} when checkpoints complete. */
  static final class ExactlyOnceSink extends TwoPhaseCommitSink<String, String> {
    private static final long serialVersionUID = 1L;
    private final String store;

    ExactlyOnceSink(String store) {
      super(new IdSerializer());
      this.store = store;
      Store.STORES.put(store, new Store());
    }

    private Store store() {
      return Store.STORES.get(store);
    }

    @Override
    protected String beginTransaction() {
      String id = UUID.randomUUID().toString();
      store().open.put(id, new ArrayList<>());
      return id;
    }

    @Override
    protected void invoke(String txn, String value, SinkWriter.Context context) {
      store().open.get(txn).add(value);
    }

    @Override
    protected void preCommit(String txn) {}

    @Override
    protected void commit(String txn) {
      Store s = store();
      List<String> values = s.open.remove(txn);
      if (values != null && s.committedIds.putIfAbsent(txn, true) == null) {
        s.committed.addAll(values);
      }
    }

    @Override
    protected void abort(String txn) {
      store().open.remove(txn);
    }

    List<String> committed() {
      return new ArrayList<>(store().committed);
    }
  }

  /** Counts elements. */
  static class Count implements AggregateFunction<Long, Long, Long> {
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

  /** "key@start=count". */
  static final class Describe extends ProcessWindowFunction<Long, String, Long, TimeWindow> {
    private static final long serialVersionUID = 1L;

    @Override
    public void process(Long key, Context context, Iterable<Long> counts, Collector<String> out) {
      for (Long count : counts) {
        out.collect(key + "@" + context.window().getStart() + "=" + count);
      }
    }
  }

  /** "key@start=count" from the elements themselves (sessions keep their elements). */
  static final class DescribeSession extends ProcessWindowFunction<Long, String, Long, TimeWindow> {
    private static final long serialVersionUID = 1L;

    @Override
    public void process(Long key, Context context, Iterable<Long> elements, Collector<String> out) {
      long n = 0;
      for (Long ignored : elements) {
        n++;
      }
      out.collect(key + "@" + context.window().getStart() + "=" + n);
    }
  }

  /** One event-time timer per key and 100 ms of event time; "key@timer" when it fires. */
  static final class TimerPerBucket extends KeyedProcessFunction<Long, Long, String> {
    private static final long serialVersionUID = 1L;

    @Override
    public void processElement(Long value, Context ctx, Collector<String> out) {
      ctx.timerService().registerEventTimeTimer(Math.floorDiv(ctx.timestamp(), 100) * 100 + 99);
    }

    @Override
    public void onTimer(long timestamp, OnTimerContext ctx, Collector<String> out) {
      out.collect(ctx.getCurrentKey() + "@" + timestamp);
    }
  }

  // ------------------------------------------------------------------ the runs

  @TempDir Path checkpoints;

  /** Whether the watermark strategy is given to the source instead of a map after it. */
  private boolean onSource;

  @Test
  void tumblingWindowCountsAreExactlyOnceAcrossFailures() throws Exception {
    tumblingWindowCounts(false);
  }

  /** The same with watermarks generated in the source, whose split watermarks are restored. */
  @Test
  void tumblingWindowCountsWithWatermarksFromTheSource() throws Exception {
    tumblingWindowCounts(true);
  }

  private void tumblingWindowCounts(boolean watermarksInSource) throws Exception {
    onSource = watermarksInSource;
    Map<String, Long> expected = new TreeMap<>();
    for (long v = 0; v < 2 * PER_SPLIT; v++) {
      long start = Math.floorDiv(eventTime(v), 100) * 100;
      expected.merge((v % KEYS) + "@" + start, 1L, Long::sum);
    }
    List<String> answer = new ArrayList<>();
    expected.forEach((window, count) -> answer.add(window + "=" + count));
    runWithFailures(
        WindowRecoveryTest::eventTime,
        keyed ->
            keyed
                .keyBy(v -> v % KEYS, Types.LONG)
                .window(TumblingEventTimeWindows.of(Duration.ofMillis(100)))
                .aggregate(new Count(), new Describe()),
        answer);
  }

  @Test
  void sessionWindowsMergeExactlyOnceAcrossFailures() throws Exception {
    Map<String, long[]> sessions = new TreeMap<>(); // key/block -> start, count
    for (long v = 0; v < 2 * PER_SPLIT; v++) {
      long[] s =
          sessions.computeIfAbsent(
              (v % KEYS) + "/" + (v / 1000), k -> new long[] {Long.MAX_VALUE, 0});
      s[0] = Math.min(s[0], sessionTime(v));
      s[1]++;
    }
    List<String> answer = new ArrayList<>();
    sessions.forEach(
        (keyBlock, s) ->
            answer.add(keyBlock.substring(0, keyBlock.indexOf('/')) + "@" + s[0] + "=" + s[1]));
    runWithFailures(
        WindowRecoveryTest::sessionTime,
        keyed ->
            keyed
                .keyBy(v -> v % KEYS, Types.LONG)
                .window(EventTimeSessionWindows.withGap(Duration.ofMillis(100)))
                .process(new DescribeSession()),
        answer);
  }

  @Test
  void eventTimeTimersFireOnceAcrossFailures() throws Exception {
    java.util.Set<String> timers = new java.util.TreeSet<>();
    for (long v = 0; v < 2 * PER_SPLIT; v++) {
      timers.add((v % KEYS) + "@" + (Math.floorDiv(eventTime(v), 100) * 100 + 99));
    }
    runWithFailures(
        WindowRecoveryTest::eventTime,
        keyed ->
            keyed
                .keyBy(v -> v % KEYS, Types.LONG)
                .process(new TimerPerBucket())
                .returns(Types.STRING),
        new ArrayList<>(timers));
  }

  /** A serializable timestamp function. */
  interface Time extends Serializable {
    long of(long v);
  }

  /**
   * Runs {@code windowed} over the gated counting source in three stages; before the second and the
   * third, once a checkpoint covers everything so far, subtask 0 is armed to fail at a random
   * record of the stage. The committed output must be {@code answer}, in any order, exactly.
   */
  private void runWithFailures(
      Time time, Function<DataStream<Long>, DataStream<String>> windowed, List<String> answer)
      throws Exception {
    long seed = new Random().nextLong();
    Random random = new Random(seed);
    Configuration conf = Configuration.fromSystemProperties();
    conf.set(CoreOptions.AUTO_WATERMARK_INTERVAL, Duration.ofMillis(10));
    StreamEnvironment env = StreamEnvironment.create(conf);
    env.setParallelism(2);
    env.enableCheckpointing(Duration.ofMillis(20));
    env.getCheckpointConfig().setCheckpointStorage(checkpoints.toUri().toString());
    env.setRestartStrategy(RestartStrategy.fixedDelay(3, Duration.ZERO));
    CountingSource source = CountingSource.gated(PER_SPLIT);
    FailAfter failures = new FailAfter();
    ExactlyOnceSink sink = new ExactlyOnceSink(UUID.randomUUID().toString());
    WatermarkStrategy<Long> strategy =
        WatermarkStrategy.<Long>forBoundedOutOfOrderness(Duration.ofMillis(50))
            .withTimestampAssigner((v, ts) -> time.of(v));
    DataStream<Long> events =
        onSource
            ? env.fromSource(source, strategy, "counting", Types.LONG).map(failures)
            : env.fromSource(source, "counting", Types.LONG)
                .map(failures)
                .assignTimestampsAndWatermarks(strategy);
    windowed.apply(events).sinkTo(sink);

    JobClient job = env.executeAsync("windows-across-failures");
    Path jobDir = jobDir(checkpoints, job);
    long stage = PER_SPLIT / 3;
    for (int s = 1; s <= 3; s++) {
      source.control().allow(s == 3 ? PER_SPLIT : s * stage);
      awaitCoveringCheckpoint(jobDir, source, 2 * (s == 3 ? PER_SPLIT : s * stage));
      if (s < 3) {
        failures.arm(1 + random.nextInt((int) stage - 1));
      }
    }
    source.control().finish();
    JobExecutionResult result = job.getJobExecutionResult().get();

    assertThat(result.metrics().get("job.restarts")).as("restarts (seed %d)", seed).isEqualTo(2L);
    assertThat(sink.committed())
        .as("committed output (seed %d)", seed)
        .containsExactlyInAnyOrderElementsOf(answer);
  }
}

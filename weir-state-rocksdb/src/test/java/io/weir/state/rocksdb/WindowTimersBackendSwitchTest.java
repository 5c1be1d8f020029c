package io.weir.state.rocksdb;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.weir.api.JobClient;
import io.weir.api.StreamEnvironment;
import io.weir.api.config.CheckpointingOptions;
import io.weir.api.eventtime.WatermarkStrategy;
import io.weir.api.functions.AggregateFunction;
import io.weir.api.functions.Collector;
import io.weir.api.functions.MapFunction;
import io.weir.api.functions.windowing.ProcessWindowFunction;
import io.weir.api.typeutils.Types;
import io.weir.api.windowing.assigners.SlidingEventTimeWindows;
import io.weir.api.windowing.windows.TimeWindow;
import io.weir.runtime.api.CollectSink;
import io.weir.runtime.api.UnboundedSource;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Windows still open at a savepoint fire after a restore on the other backend: the heap keeps its
 * window timers in a heap of its own and writes them into the keyed state only for a checkpoint,
 * RocksDB keeps them in the keyed state, and both must write and read the same savepoint. RocksDB
 * writes the layout every checkpoint had before the heap got its own timers, so its savepoint read
 * on the heap is also an old checkpoint read by the new heap timers.
 */
@Timeout(120)
class WindowTimersBackendSwitchTest {

  static final int KEYS = 7;

  /** Values 0 .. 2 * PER_SUBTASK - 1, each its own event time in milliseconds. */
  static final long PER_SUBTASK = 1_000;

  static final Map<String, AtomicLong> SEEN = new ConcurrentHashMap<>();

  @TempDir Path dir;

  static long key(long v) {
    return v % KEYS;
  }

  /** Counts the records that passed, so the test knows all were emitted before it stops. */
  static final class Seen implements MapFunction<Long, Long> {
    private static final long serialVersionUID = 1L;
    private final String id;

    Seen(String id) {
      this.id = id;
    }

    @Override
    public Long map(Long value) {
      SEEN.get(id).incrementAndGet();
      return value;
    }
  }

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

  /** Every window of 1 s sliding by 500 ms over the values, "key@start=count", sorted. */
  static List<String> expected() {
    Map<String, Long> counts = new TreeMap<>();
    for (long v = 0; v < 2 * PER_SUBTASK; v++) {
      long last = v - v % 500;
      for (long start = last; start > v - 1000; start -= 500) {
        counts.merge(key(v) + "@" + start, 1L, Long::sum);
      }
    }
    List<String> out = new ArrayList<>();
    counts.forEach((window, count) -> out.add(window + "=" + count));
    out.sort(null);
    return out;
  }

  @ParameterizedTest(name = "{0} -> {1}")
  @CsvSource({"hashmap, rocksdb-full", "rocksdb-full, hashmap", "hashmap, hashmap"})
  void openWindowsFireOnceAfterTheSwitch(String from, String to) throws Exception {
    String id = from + "->" + to;
    SEEN.put(id, new AtomicLong());
    WatermarkStrategy<Long> strategy =
        WatermarkStrategy.<Long>forMonotonousTimestamps().withTimestampAssigner((v, ts) -> v);
    StreamEnvironment first = TestBackends.environment(from, dir, "local-" + from);
    CollectSink<String> before = new CollectSink<>();
    first
        .fromSource(UnboundedSource.emitting(PER_SUBTASK, 0), strategy, "numbers", Types.LONG)
        .uid("numbers")
        .map(new Seen(id))
        .uid("seen")
        .keyBy(WindowTimersBackendSwitchTest::key, Types.LONG)
        .window(SlidingEventTimeWindows.of(Duration.ofMillis(1000), Duration.ofMillis(500)))
        .aggregate(new Count(), new Describe())
        .uid("windows")
        .sinkTo(before);
    JobClient client = first.executeAsync("windows-on-" + from);
    await().atMost(Duration.ofSeconds(60)).until(() -> SEEN.get(id).get() >= 2 * PER_SUBTASK);
    // Without draining: the watermark stays below 1999, so the windows ending at 2000 and 2500
    // are open in the savepoint.
    String savepoint = client.stopWithSavepoint(null, false).get(60, TimeUnit.SECONDS);

    StreamEnvironment second = TestBackends.environment(to, dir, "local-" + to + "-2");
    second.getConfiguration().set(CheckpointingOptions.SAVEPOINT_PATH, savepoint);
    second.getConfiguration().set(CheckpointingOptions.SAVEPOINT_IGNORE_UNCLAIMED_STATE, true);
    CollectSink<String> after = new CollectSink<>();
    // One far later value; the end of the input is the final watermark, which fires every window.
    second
        .fromCollection(List.of(1_000_000L), Types.LONG)
        .assignTimestampsAndWatermarks(strategy)
        .uid("later")
        .keyBy(WindowTimersBackendSwitchTest::key, Types.LONG)
        .window(SlidingEventTimeWindows.of(Duration.ofMillis(1000), Duration.ofMillis(500)))
        .aggregate(new Count(), new Describe())
        .uid("windows")
        .sinkTo(after);
    second.execute("windows-on-" + to);

    List<String> restored = new ArrayList<>();
    for (String window : after.results()) {
      if (Long.parseLong(window.substring(window.indexOf('@') + 1, window.indexOf('='))) < 2000) {
        restored.add(window);
      }
    }
    assertThat(restored)
        .as("the windows ending at 2000 and 2500 were open in the savepoint and fire after it")
        .containsAll(
            expected().stream().filter(w -> w.contains("@1000=") || w.contains("@1500=")).toList());
    List<String> all = new ArrayList<>(before.results());
    all.addAll(restored);
    all.sort(null);
    assertThat(all).as("every window fires once, before or after the switch").isEqualTo(expected());
  }
}

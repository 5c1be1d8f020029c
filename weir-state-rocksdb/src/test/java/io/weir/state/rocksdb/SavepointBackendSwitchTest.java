package io.weir.state.rocksdb;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.weir.api.JobClient;
import io.weir.api.StreamEnvironment;
import io.weir.api.config.CheckpointingOptions;
import io.weir.api.functions.Collector;
import io.weir.api.functions.KeyedProcessFunction;
import io.weir.api.functions.OpenContext;
import io.weir.api.state.ListState;
import io.weir.api.state.ListStateDescriptor;
import io.weir.api.state.MapState;
import io.weir.api.state.MapStateDescriptor;
import io.weir.api.state.ValueState;
import io.weir.api.state.ValueStateDescriptor;
import io.weir.api.typeutils.Types;
import io.weir.runtime.api.CollectSink;
import io.weir.runtime.api.UnboundedSource;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * A job switches its state backend through a savepoint: value, list and map state written by one
 * backend (heap, RocksDB with incremental or native full checkpoints) are read back exactly by the
 * other, since a savepoint is always in the canonical key-group format.
 */
@Timeout(120)
class SavepointBackendSwitchTest {

  static final int KEYS = 7;
  static final long PER_SUBTASK = 1_000;

  @TempDir Path dir;

  /** Values 0.. are counted; a marker {@code -1 - k} asks for a summary of key k's state. */
  static long key(long v) {
    return v >= 0 ? v % KEYS : -v - 1;
  }

  /**
   * Keeps per key the count (value state), the values divisible by 100 (list state) and how many
   * values ended in each last digit (map state); answers a marker with all three.
   */
  static final class ThreeStates extends KeyedProcessFunction<Long, Long, String> {
    private static final long serialVersionUID = 1L;
    private transient ValueState<Long> count;
    private transient ListState<Long> hundreds;
    private transient MapState<Long, Long> lastDigits;

    @Override
    public void open(OpenContext openContext) {
      count = getRuntimeContext().getState(new ValueStateDescriptor<>("count", Types.LONG));
      hundreds =
          getRuntimeContext().getListState(new ListStateDescriptor<>("hundreds", Types.LONG));
      lastDigits =
          getRuntimeContext()
              .getMapState(new MapStateDescriptor<>("last-digits", Types.LONG, Types.LONG));
    }

    @Override
    public void processElement(Long v, Context ctx, Collector<String> out) throws Exception {
      if (v < 0) {
        List<Long> list = new ArrayList<>();
        hundreds.get().forEach(list::add);
        list.sort(null);
        Map<Long, Long> digits = new TreeMap<>();
        for (Map.Entry<Long, Long> e : lastDigits.entries()) {
          digits.put(e.getKey(), e.getValue());
        }
        out.collect(summary(ctx.getCurrentKey(), count.value(), list, digits));
        return;
      }
      Long c = count.value();
      count.update(c == null ? 1 : c + 1);
      if (v % 100 == 0) {
        hundreds.add(v);
      }
      Long d = lastDigits.get(v % 10);
      lastDigits.put(v % 10, d == null ? 1 : d + 1);
      out.collect("updated");
    }
  }

  static String summary(long key, Long count, List<Long> hundreds, Map<Long, Long> digits) {
    return key + " count=" + count + " hundreds=" + hundreds + " digits=" + digits;
  }

  /** What the summaries must say after the values {@code 0 .. total - 1}. */
  static List<String> expected(long total) {
    List<String> out = new ArrayList<>();
    for (long k = 0; k < KEYS; k++) {
      long count = 0;
      List<Long> hundreds = new ArrayList<>();
      Map<Long, Long> digits = new TreeMap<>();
      for (long v = 0; v < total; v++) {
        if (v % KEYS == k) {
          count++;
          if (v % 100 == 0) {
            hundreds.add(v);
          }
          digits.merge(v % 10, 1L, Long::sum);
        }
      }
      out.add(summary(k, count, hundreds, digits));
    }
    return out;
  }

  @ParameterizedTest(name = "{0} -> {1}")
  @CsvSource({
    "hashmap, rocksdb-incremental",
    "rocksdb-incremental, hashmap",
    "rocksdb-full, hashmap",
    "hashmap, rocksdb-full"
  })
  void stateWrittenByOneBackendIsReadExactlyByTheOther(String from, String to) throws Exception {
    StreamEnvironment first = TestBackends.environment(from, dir, "local-" + from);
    CollectSink<String> updates = new CollectSink<>();
    first
        .fromSource(UnboundedSource.emitting(PER_SUBTASK, 0), "numbers", Types.LONG)
        .uid("numbers")
        .keyBy(SavepointBackendSwitchTest::key, Types.LONG)
        .process(new ThreeStates())
        .uid("states")
        .sinkTo(updates);
    JobClient client = first.executeAsync("written-by-" + from);
    await().atMost(Duration.ofSeconds(60)).until(() -> updates.size() >= 2 * PER_SUBTASK);
    String savepoint = client.stopWithSavepoint(null, false).get(60, TimeUnit.SECONDS);
    try (Stream<Path> files = Files.walk(Path.of(java.net.URI.create(savepoint)))) {
      assertThat(files.map(p -> p.getFileName().toString()))
          .as("canonical format: no native RocksDB files in a savepoint")
          .noneMatch(name -> name.endsWith(".sst"));
    }

    StreamEnvironment second = TestBackends.environment(to, dir, "local-" + to + "-2");
    second.getConfiguration().set(CheckpointingOptions.SAVEPOINT_PATH, savepoint);
    // The summary job reads its markers from another source; the first job's one is dropped.
    second.getConfiguration().set(CheckpointingOptions.SAVEPOINT_IGNORE_UNCLAIMED_STATE, true);
    CollectSink<String> summaries = new CollectSink<>();
    List<Long> markers = new ArrayList<>();
    for (long k = 0; k < KEYS; k++) {
      markers.add(-1 - k);
    }
    second
        .fromCollection(markers, Types.LONG)
        .uid("markers")
        .keyBy(SavepointBackendSwitchTest::key, Types.LONG)
        .process(new ThreeStates())
        .uid("states")
        .sinkTo(summaries);
    second.execute("read-by-" + to);

    List<String> got = new ArrayList<>(summaries.results());
    got.sort(null);
    List<String> want = expected(2 * PER_SUBTASK);
    want.sort(null);
    assertThat(got).isEqualTo(want);
  }
}

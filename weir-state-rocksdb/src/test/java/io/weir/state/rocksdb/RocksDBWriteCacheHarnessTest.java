package io.weir.state.rocksdb;

import io.weir.api.config.CheckpointingOptions;
import io.weir.api.functions.Collector;
import io.weir.api.functions.KeyedProcessFunction;
import io.weir.api.functions.OpenContext;
import io.weir.api.state.ReducingState;
import io.weir.api.state.ReducingStateDescriptor;
import io.weir.api.state.ValueState;
import io.weir.api.state.ValueStateDescriptor;
import io.weir.api.typeutils.Types;
import io.weir.runtime.testing.OperatorHarness;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * A keyed count on the RocksDB backend with write caches of one, two and a hundred entries (and
 * write batches of one write, a few, and all of them until a flush), driven by the operator
 * harness: a snapshot + restore before every element, and a crash + replay, must not change the
 * output. The harness builds its backend from system properties, so this test sets them for the
 * duration of each case (tests of this module run one at a time). As for every harness suite on
 * RocksDB, the single restores and the crash + replay runs take a sample of positions (the first,
 * the second, the middle and the last; weir.harness.sampled in this module's pom) and {@code
 * -Dweir.test.matrix.full=true} takes them all; {@link RocksDBWriteCachePropertyTest} fails and
 * restores at random points.
 */
class RocksDBWriteCacheHarnessTest {

  private final Properties saved = (Properties) System.getProperties().clone();

  @AfterEach
  void restoreProperties() {
    System.setProperties(saved);
  }

  /** Counts per key and sums the counts in a reducing state; an element 0 clears the key. */
  static final class CountAndTotal extends KeyedProcessFunction<String, String, String> {
    private static final long serialVersionUID = 1L;
    private transient ValueState<Long> count;
    private transient ReducingState<Long> total;

    @Override
    public void open(OpenContext openContext) {
      count = getRuntimeContext().getState(new ValueStateDescriptor<>("count", Types.LONG, 0L));
      total =
          getRuntimeContext()
              .getReducingState(new ReducingStateDescriptor<>("total", Long::sum, Types.LONG));
    }

    @Override
    public void processElement(String e, Context ctx, Collector<String> out) throws Exception {
      if (e.endsWith("0")) {
        count.clear();
        total.clear();
        out.collect(ctx.getCurrentKey() + " cleared");
        return;
      }
      long now = count.value() + 1;
      count.update(now);
      total.add(now);
      out.collect(ctx.getCurrentKey() + " count=" + now + " total=" + total.get());
    }
  }

  @ParameterizedTest(name = "cache {0}, incremental {1}, write batch {2}")
  // Each cache size, checkpoint kind and write batch at least once; the harness restores before
  // every element, so each case costs seconds (the property tests cover the other mixes).
  @CsvSource({"1, true, 1b", "2, false, 2mb", "100, true, 30b"})
  void keyedCountSurvivesSnapshotAndRestoreAtEveryStep(
      int cacheSize, boolean incremental, String writeBatch) {
    System.setProperty(CheckpointingOptions.STATE_BACKEND.key(), "rocksdb");
    System.setProperty(
        CheckpointingOptions.INCREMENTAL_CHECKPOINTS.key(), String.valueOf(incremental));
    System.setProperty(RocksDBOptions.WRITE_CACHE_SIZE.key(), String.valueOf(cacheSize));
    System.setProperty(RocksDBOptions.WRITE_BATCH_SIZE.key(), writeBatch);

    List<String> input = new ArrayList<>();
    String keys = "abcabdaeebcx";
    for (int i = 0; i < keys.length(); i++) {
      input.add(keys.charAt(i) + (i == 7 || i == 10 ? "0" : "1"));
    }
    input.addAll(List.of("a1", "b1", "e1", "a1"));
    List<String> expected = new ArrayList<>();
    Map<String, long[]> model = new HashMap<>();
    for (String e : input) {
      String key = e.substring(0, 1);
      if (e.endsWith("0")) {
        model.remove(key);
        expected.add(key + " cleared");
        continue;
      }
      long[] m = model.computeIfAbsent(key, k -> new long[2]);
      m[0]++;
      m[1] += m[0];
      expected.add(key + " count=" + m[0] + " total=" + m[1]);
    }

    OperatorHarness.forKeyedProcess(
            new CountAndTotal(), (String e) -> e.substring(0, 1), Types.STRING, Types.STRING)
        .input(input)
        .expectOutput(expected)
        .verify();
  }
}

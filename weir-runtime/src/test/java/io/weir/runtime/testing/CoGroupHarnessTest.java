package io.weir.runtime.testing;

import io.weir.api.DataStream;
import io.weir.api.StreamEnvironment;
import io.weir.api.functions.CoGroupFunction;
import io.weir.api.functions.Collector;
import io.weir.api.tuple.Tuple2;
import io.weir.api.typeutils.Types;
import io.weir.api.windowing.assigners.EventTimeSessionWindows;
import io.weir.api.windowing.assigners.TumblingEventTimeWindows;
import io.weir.runtime.testing.matrix.MatrixCell;
import io.weir.runtime.testing.matrix.TestMatrix;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Window coGroup and window join through the harness, with a snapshot + restore before every step
 * and crashes with replays: both sides' elements wait in the window's keyed state. The window
 * operator's input is the tagged union of both streams, {@code Tuple2(first, null)} or {@code
 * Tuple2(null, second)}. Run on the heap here and, with full checkpoints, on RocksDB in
 * weir-state-rocksdb.
 */
@Timeout(120)
@TestMatrix(skip = MatrixCell.ROCKSDB_INCREMENTAL)
class CoGroupHarnessTest {

  /** "key:first elements|second elements", each side sorted. */
  static final class Describe implements CoGroupFunction<String, String, String> {
    private static final long serialVersionUID = 1L;

    @Override
    public void coGroup(Iterable<String> first, Iterable<String> second, Collector<String> out) {
      List<String> a = sorted(first);
      List<String> b = sorted(second);
      String key = (a.isEmpty() ? b : a).get(0).substring(0, 1);
      out.collect(key + ":" + String.join(",", a) + "|" + String.join(",", b));
    }

    private static List<String> sorted(Iterable<String> values) {
      List<String> list = new ArrayList<>();
      values.forEach(list::add);
      list.sort(null);
      return list;
    }
  }

  private static String key(String s) {
    return s.substring(0, 1);
  }

  private static Tuple2<String, String> first(String s) {
    return Tuple2.of(s, null);
  }

  private static Tuple2<String, String> second(String s) {
    return Tuple2.of(null, s);
  }

  private static DataStream<String> strings(StreamEnvironment env) {
    return env.fromElements("a");
  }

  @Test
  void aCoGroupGetsBothSidesOfEachKeyAndWindowEvenWhenOneIsEmpty() {
    StreamEnvironment env = StreamEnvironment.create();
    DataStream<String> coGrouped =
        strings(env)
            .coGroup(strings(env))
            .where(CoGroupHarnessTest::key, Types.STRING)
            .equalTo(CoGroupHarnessTest::key)
            .window(TumblingEventTimeWindows.of(Duration.ofMillis(10)))
            .apply(new Describe(), Types.STRING);
    OperatorHarness.<Tuple2<String, String>, String>forStream(coGrouped)
        .element(first("a1"), 1)
        .element(second("a2"), 2)
        .element(first("b1"), 3) // b has no second element in [0, 10)
        .element(second("c1"), 4) // c has no first element
        .element(first("a3"), 8)
        .element(second("a4"), 12) // [10, 20)
        .watermark(9)
        .element(first("b2"), 15)
        .expectOutputInAnyOrder(List.of("a:a1,a3|a2", "b:b1|", "c:|c1", "a:|a4", "b:b2|"))
        .verify();
  }

  @Test
  void aCoGroupOnSessionWindowsMergesBothSides() {
    StreamEnvironment env = StreamEnvironment.create();
    DataStream<String> coGrouped =
        strings(env)
            .coGroup(strings(env))
            .where(CoGroupHarnessTest::key, Types.STRING)
            .equalTo(CoGroupHarnessTest::key)
            .window(EventTimeSessionWindows.withGap(Duration.ofMillis(10)))
            .apply(new Describe(), Types.STRING);
    OperatorHarness.<Tuple2<String, String>, String>forStream(coGrouped)
        .element(first("a1"), 1)
        .element(second("a2"), 30)
        .element(first("a3"), 20) // [20, 30) merges with [30, 40); [1, 11) stays apart
        .watermark(15) // [1, 11) ends
        .element(second("a4"), 25)
        .expectOutput(List.of("a:a1|", "a:a3|a2,a4"))
        .verify();
  }

  @Test
  void aWindowJoinIsTheCrossProductPerKeyAndWindow() {
    StreamEnvironment env = StreamEnvironment.create();
    DataStream<String> joined =
        strings(env)
            .join(strings(env))
            .where(CoGroupHarnessTest::key, Types.STRING)
            .equalTo(CoGroupHarnessTest::key)
            .window(TumblingEventTimeWindows.of(Duration.ofMillis(10)))
            .apply((x, y) -> x + "+" + y, Types.STRING);
    OperatorHarness.<Tuple2<String, String>, String>forStream(joined)
        .element(first("a1"), 1)
        .element(second("a2"), 2)
        .element(first("b1"), 3) // nothing to join with
        .element(first("a3"), 5)
        .element(second("a4"), 11)
        .element(first("a5"), 12)
        .expectOutputInAnyOrder(List.of("a1+a2", "a3+a2", "a5+a4"))
        .verify();
  }
}

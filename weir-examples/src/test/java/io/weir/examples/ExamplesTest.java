package io.weir.examples;

import static org.assertj.core.api.Assertions.assertThat;

import io.weir.api.StreamEnvironment;
import io.weir.api.functions.SinkFunction;
import io.weir.api.tuple.Tuple2;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Every example's pipeline gives exactly the expected output. */
class ExamplesTest {

  static final Queue<Object> OUT = new ConcurrentLinkedQueue<>();

  @BeforeEach
  void clear() {
    OUT.clear();
  }

  private static <T> SinkFunction<T> collect() {
    return (value, ctx) -> OUT.add(value);
  }

  @Test
  void wordCountEmitsARunningCountPerWord() throws Exception {
    StreamEnvironment env = StreamEnvironment.create();
    env.setParallelism(3);
    WordCount.counts(env.fromElements("a b a", "b a c", "A!")).addSink(collect());
    env.execute("word-count-test");

    Map<String, Long> finalCounts = new HashMap<>();
    Map<String, List<Long>> perWord = new HashMap<>();
    for (Object o : OUT) {
      @SuppressWarnings("unchecked")
      Tuple2<String, Long> t = (Tuple2<String, Long>) o;
      finalCounts.merge(t.f0, t.f1, Math::max);
      perWord.computeIfAbsent(t.f0, w -> new ArrayList<>()).add(t.f1);
    }
    assertThat(finalCounts).containsExactlyInAnyOrderEntriesOf(Map.of("a", 4L, "b", 2L, "c", 1L));
    // A running count: each word's outputs are 1..n in order.
    assertThat(perWord.get("a")).containsExactly(1L, 2L, 3L, 4L);
  }

  @Test
  void keyedRunningSumEndsWithTheArithmeticSumPerKey() throws Exception {
    StreamEnvironment env = StreamEnvironment.create();
    env.setParallelism(2);
    KeyedRunningSum.sums(env.fromSequence(1, 1000), 7).addSink(collect());
    env.execute("running-sum-test");

    Map<Long, Long> last = new HashMap<>();
    for (Object o : OUT) {
      @SuppressWarnings("unchecked")
      Tuple2<Long, Long> t = (Tuple2<Long, Long>) o;
      last.merge(t.f0, t.f1, Math::max);
    }
    Map<Long, Long> expected = new HashMap<>();
    for (long i = 1; i <= 1000; i++) {
      expected.merge(i % 7, i, Long::sum);
    }
    assertThat(OUT).hasSize(1000);
    assertThat(last).isEqualTo(expected);
  }

  @Test
  void orderShipmentJoinMatchesEveryShippedOrderOnce() throws Exception {
    StreamEnvironment env = StreamEnvironment.create();
    env.setParallelism(2);
    var orders = env.fromSequence(1, 100).map(i -> new OrderShipmentJoin.Order(i, "item-" + i));
    var shipments =
        env.fromSequence(1, 100)
            .filter(i -> i % 3 == 0)
            .map(i -> new OrderShipmentJoin.Shipment(i, "road"));
    OrderShipmentJoin.matched(orders, shipments).addSink(collect());
    env.execute("join-test");

    List<String> expected = new ArrayList<>();
    for (long i = 3; i <= 100; i += 3) {
      expected.add("order " + i + " (item-" + i + ") shipped by road");
    }
    assertThat(OUT).map(String::valueOf).containsExactlyInAnyOrderElementsOf(expected);
  }
}

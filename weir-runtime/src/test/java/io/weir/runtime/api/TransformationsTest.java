package io.weir.runtime.api;

import static org.assertj.core.api.Assertions.assertThat;

import io.weir.api.DataStream;
import io.weir.api.JobExecutionResult;
import io.weir.api.StreamEnvironment;
import io.weir.api.functions.CoProcessFunction;
import io.weir.api.functions.Collector;
import io.weir.api.functions.KeyedCoProcessFunction;
import io.weir.api.functions.KeyedProcessFunction;
import io.weir.api.functions.OpenContext;
import io.weir.api.functions.ProcessFunction;
import io.weir.api.functions.RichMapFunction;
import io.weir.api.state.ValueState;
import io.weir.api.state.ValueStateDescriptor;
import io.weir.api.tuple.Tuple2;
import io.weir.api.tuple.Tuple3;
import io.weir.api.typeutils.Types;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Every DataStream transformation in local execution, with exact expected outputs. */
@Timeout(30)
@SuppressWarnings("SameNameButDifferent") // the Context of each function class
public class TransformationsTest {

  /** A sale of a shop; Serializable because fromElements ships its elements with the source. */
  public record Sale(String shop, long amount) implements Serializable {}

  private static StreamEnvironment env(int parallelism) {
    StreamEnvironment env = StreamEnvironment.create();
    env.setParallelism(parallelism);
    return env;
  }

  private static List<Long> range(long from, long to) {
    return LongStream.rangeClosed(from, to).boxed().collect(Collectors.toList());
  }

  @ParameterizedTest
  @ValueSource(ints = {1, 2, 4})
  void map(int parallelism) throws Exception {
    StreamEnvironment env = env(parallelism);
    CollectSink<Long> sink = new CollectSink<>();
    env.fromSequence(1, 100).map(x -> x * 3).sinkTo(sink);
    env.execute("map");

    List<Long> expected = new ArrayList<>();
    for (long i = 1; i <= 100; i++) {
      expected.add(i * 3);
    }
    assertThat(sink.results()).containsExactlyInAnyOrderElementsOf(expected);
  }

  @ParameterizedTest
  @ValueSource(ints = {1, 3})
  void flatMapWithReturns(int parallelism) throws Exception {
    StreamEnvironment env = env(parallelism);
    CollectSink<String> sink = new CollectSink<>();
    List<String> lines = List.of("a b c", "", "d", "e f", "g h i j");
    env.fromCollection(lines)
        .flatMap(
            (String line, Collector<String> out) -> {
              for (String w : line.split(" ", -1)) {
                if (!w.isEmpty()) {
                  out.collect(w.toUpperCase(java.util.Locale.ROOT));
                }
              }
            })
        .returns(Types.STRING)
        .sinkTo(sink);
    env.execute("flatMap");

    assertThat(sink.results())
        .containsExactlyInAnyOrder("A", "B", "C", "D", "E", "F", "G", "H", "I", "J");
  }

  @ParameterizedTest
  @ValueSource(ints = {1, 2})
  void flatMapToTuplesWithReturns(int parallelism) throws Exception {
    StreamEnvironment env = env(parallelism);
    CollectSink<Tuple2<Long, Long>> sink = new CollectSink<>();
    env.fromSequence(1, 5)
        .flatMap(
            (Long n, Collector<Tuple2<Long, Long>> out) -> {
              for (long i = 0; i < n; i++) {
                out.collect(Tuple2.of(n, i));
              }
            })
        .returns(Types.TUPLE(Types.LONG, Types.LONG))
        .sinkTo(sink);
    env.execute("flatMap-tuples");

    List<Tuple2<Long, Long>> expected = new ArrayList<>();
    for (long n = 1; n <= 5; n++) {
      for (long i = 0; i < n; i++) {
        expected.add(Tuple2.of(n, i));
      }
    }
    assertThat(sink.results()).containsExactlyInAnyOrderElementsOf(expected);
  }

  @ParameterizedTest
  @ValueSource(ints = {1, 2, 4})
  void filter(int parallelism) throws Exception {
    StreamEnvironment env = env(parallelism);
    CollectSink<Long> sink = new CollectSink<>();
    env.fromSequence(1, 200).filter(x -> x % 7 == 0).sinkTo(sink);
    env.execute("filter");

    List<Long> expected = range(1, 200).stream().filter(x -> x % 7 == 0).toList();
    assertThat(sink.results()).containsExactlyInAnyOrderElementsOf(expected);
  }

  /** Emits each element twice, tagged; checks that a non-keyed process sees no timestamp. */
  public static final class Twice extends ProcessFunction<Long, String> {
    private static final long serialVersionUID = 1L;

    @Override
    public void processElement(Long value, Context ctx, Collector<String> out) {
      out.collect("a" + value + (ctx.timestamp() == null ? "" : "@" + ctx.timestamp()));
      out.collect("b" + value);
    }
  }

  @ParameterizedTest
  @ValueSource(ints = {1, 3})
  void processFunction(int parallelism) throws Exception {
    StreamEnvironment env = env(parallelism);
    CollectSink<String> sink = new CollectSink<>();
    env.fromSequence(1, 30).process(new Twice()).sinkTo(sink);
    env.execute("process");

    List<String> expected = new ArrayList<>();
    for (long i = 1; i <= 30; i++) {
      expected.add("a" + i);
      expected.add("b" + i);
    }
    assertThat(sink.results()).containsExactlyInAnyOrderElementsOf(expected);
  }

  /** Counts elements per key in a ValueState and emits (key, count so far). */
  public static final class CountPerKey
      extends KeyedProcessFunction<String, String, Tuple2<String, Long>> {
    private static final long serialVersionUID = 1L;
    private transient ValueState<Long> count;

    @Override
    public void open(OpenContext openContext) {
      count = getRuntimeContext().getState(new ValueStateDescriptor<>("count", Types.LONG));
    }

    @Override
    public void processElement(String value, Context ctx, Collector<Tuple2<String, Long>> out)
        throws Exception {
      assertThat(ctx.getCurrentKey()).isEqualTo(value);
      Long c = count.value();
      long next = c == null ? 1 : c + 1;
      count.update(next);
      out.collect(Tuple2.of(value, next));
    }
  }

  @ParameterizedTest
  @ValueSource(ints = {1, 2, 4})
  void keyedProcessWithValueState(int parallelism) throws Exception {
    StreamEnvironment env = env(parallelism);
    CollectSink<Tuple2<String, Long>> sink = new CollectSink<>();
    List<String> input = new ArrayList<>();
    String[] keys = {"apple", "pear", "plum", "fig", "kiwi", "lime"};
    for (int i = 0; i < 60; i++) {
      input.add(keys[(i * i + i / 3) % keys.length]);
    }
    env.fromCollection(input).keyBy(s -> s, Types.STRING).process(new CountPerKey()).sinkTo(sink);
    env.execute("keyed-process");

    // Expected, computed independently: the i-th occurrence of a key yields (key, i).
    Map<String, Long> seen = new HashMap<>();
    List<Tuple2<String, Long>> expected = new ArrayList<>();
    for (String k : input) {
      expected.add(Tuple2.of(k, seen.merge(k, 1L, Long::sum)));
    }
    assertThat(sink.results()).containsExactlyInAnyOrderElementsOf(expected);
    // The input comes from one source subtask, so each key's outputs keep their order.
    assertThat(byKey(sink.results(), t -> t.f0)).isEqualTo(byKey(expected, t -> t.f0));
  }

  private static <T> Map<Object, List<T>> byKey(
      List<T> elements, java.util.function.Function<T, Object> key) {
    Map<Object, List<T>> grouped = new LinkedHashMap<>();
    for (T e : elements) {
      grouped.computeIfAbsent(key.apply(e), k -> new ArrayList<>()).add(e);
    }
    return new HashMap<>(grouped);
  }

  @ParameterizedTest
  @ValueSource(ints = {1, 2, 3})
  void keyedReduce(int parallelism) throws Exception {
    StreamEnvironment env = env(parallelism);
    CollectSink<Tuple2<String, Integer>> sink = new CollectSink<>();
    List<Tuple2<String, Integer>> input = new ArrayList<>();
    for (int i = 0; i < 40; i++) {
      input.add(Tuple2.of("k" + (i % 5), i));
    }
    env.fromCollection(input, Types.TUPLE(Types.STRING, Types.INT))
        .keyBy(t -> t.f0, Types.STRING)
        .reduce((a, b) -> Tuple2.of(a.f0, a.f1 + b.f1))
        .sinkTo(sink);
    env.execute("reduce");

    Map<String, Integer> running = new HashMap<>();
    List<Tuple2<String, Integer>> expected = new ArrayList<>();
    for (Tuple2<String, Integer> t : input) {
      expected.add(Tuple2.of(t.f0, running.merge(t.f0, t.f1, Integer::sum)));
    }
    assertThat(byKey(sink.results(), t -> t.f0)).isEqualTo(byKey(expected, t -> t.f0));
  }

  @ParameterizedTest
  @ValueSource(ints = {1, 2, 4})
  void keyedSumOfTupleField(int parallelism) throws Exception {
    StreamEnvironment env = env(parallelism);
    CollectSink<Tuple3<String, Integer, String>> sink = new CollectSink<>();
    List<Tuple3<String, Integer, String>> input = new ArrayList<>();
    for (int i = 0; i < 30; i++) {
      input.add(Tuple3.of("k" + (i % 3), i * 10, "tag" + i));
    }
    env.fromCollection(input, Types.TUPLE(Types.STRING, Types.INT, Types.STRING))
        .keyBy(t -> t.f0, Types.STRING)
        .sum(1)
        .sinkTo(sink);
    env.execute("sum-tuple");

    // Flink semantics: the summed field is the running sum, the other fields those of the first
    // element of the key.
    Map<String, Integer> running = new HashMap<>();
    Map<String, String> firstTag = new HashMap<>();
    List<Tuple3<String, Integer, String>> expected = new ArrayList<>();
    for (Tuple3<String, Integer, String> t : input) {
      firstTag.putIfAbsent(t.f0, t.f2);
      expected.add(Tuple3.of(t.f0, running.merge(t.f0, t.f1, Integer::sum), firstTag.get(t.f0)));
    }
    assertThat(byKey(sink.results(), t -> t.f0)).isEqualTo(byKey(expected, t -> t.f0));
  }

  @ParameterizedTest
  @ValueSource(ints = {1, 2, 4})
  void keyedSumOfTuple2Field(int parallelism) throws Exception {
    StreamEnvironment env = env(parallelism);
    CollectSink<Tuple2<String, Integer>> sink = new CollectSink<>();
    List<Tuple2<String, Integer>> input = new ArrayList<>();
    for (int i = 0; i < 30; i++) {
      input.add(Tuple2.of("k" + (i % 4), i));
    }
    env.fromCollection(input, Types.TUPLE(Types.STRING, Types.INT))
        .keyBy(t -> t.f0, Types.STRING)
        .sum(1)
        .sinkTo(sink);
    env.execute("sum-tuple2");

    Map<String, Integer> running = new HashMap<>();
    List<Tuple2<String, Integer>> expected = new ArrayList<>();
    for (Tuple2<String, Integer> t : input) {
      expected.add(Tuple2.of(t.f0, running.merge(t.f0, t.f1, Integer::sum)));
    }
    assertThat(byKey(sink.results(), t -> t.f0)).isEqualTo(byKey(expected, t -> t.f0));
  }

  @ParameterizedTest
  @ValueSource(ints = {1, 2, 3})
  void keyedSumOfLongs(int parallelism) throws Exception {
    StreamEnvironment env = env(parallelism);
    CollectSink<Long> sink = new CollectSink<>();
    // One source subtask, so per-key order (and thus every running sum) is deterministic.
    env.fromSequence(1, 30).setParallelism(1).keyBy(x -> x % 3).sum(0).sinkTo(sink);
    env.execute("sum-long");

    Map<Long, Long> running = new HashMap<>();
    List<Long> expected = new ArrayList<>();
    for (long x = 1; x <= 30; x++) {
      expected.add(running.merge(x % 3, x, Long::sum));
    }
    assertThat(sink.results()).containsExactlyInAnyOrderElementsOf(expected);
  }

  @ParameterizedTest
  @ValueSource(ints = {1, 2})
  void keyedSumOfRecordField(int parallelism) throws Exception {
    StreamEnvironment env = env(parallelism);
    CollectSink<Sale> sink = new CollectSink<>();
    List<Sale> input = new ArrayList<>();
    for (int i = 0; i < 20; i++) {
      input.add(new Sale(i % 2 == 0 ? "north" : (i % 3 == 0 ? "south" : "east"), i + 1));
    }
    env.fromCollection(input).keyBy(Sale::shop, Types.STRING).sum("amount").sinkTo(sink);
    env.execute("sum-record");

    Map<String, Long> running = new HashMap<>();
    List<Sale> expected = new ArrayList<>();
    for (Sale s : input) {
      expected.add(new Sale(s.shop(), running.merge(s.shop(), s.amount(), Long::sum)));
    }
    assertThat(byKey(sink.results(), Sale::shop)).isEqualTo(byKey(expected, Sale::shop));
  }

  @ParameterizedTest
  @ValueSource(ints = {1, 2, 3})
  void unionOfThreeStreams(int parallelism) throws Exception {
    StreamEnvironment env = env(parallelism);
    CollectSink<Long> sink = new CollectSink<>();
    DataStream<Long> a = env.fromSequence(1, 10);
    DataStream<Long> b = env.fromSequence(100, 120).map(x -> x + 1000);
    DataStream<Long> c = env.fromElements(-1L, -2L, -3L);
    a.union(b, c).map(x -> x * 2).sinkTo(sink);
    env.execute("union");

    List<Long> expected = new ArrayList<>();
    range(1, 10).forEach(x -> expected.add(x * 2));
    range(100, 120).forEach(x -> expected.add((x + 1000) * 2));
    List.of(-1L, -2L, -3L).forEach(x -> expected.add(x * 2));
    assertThat(sink.results()).containsExactlyInAnyOrderElementsOf(expected);
  }

  /** Tags elements of each input. */
  public static final class TagInputs extends CoProcessFunction<String, Long, String> {
    private static final long serialVersionUID = 1L;

    @Override
    public void processElement1(String value, Context ctx, Collector<String> out) {
      out.collect("s:" + value);
    }

    @Override
    public void processElement2(Long value, Context ctx, Collector<String> out) {
      out.collect("l:" + value);
    }
  }

  @ParameterizedTest
  @ValueSource(ints = {1, 2})
  void connectWithCoProcessFunction(int parallelism) throws Exception {
    StreamEnvironment env = env(parallelism);
    CollectSink<String> sink = new CollectSink<>();
    DataStream<String> words = env.fromElements("x", "y", "z");
    DataStream<Long> numbers = env.fromSequence(1, 20);
    words.connect(numbers).process(new TagInputs()).sinkTo(sink);
    env.execute("connect");

    List<String> expected = new ArrayList<>(List.of("s:x", "s:y", "s:z"));
    range(1, 20).forEach(x -> expected.add("l:" + x));
    assertThat(sink.results()).containsExactlyInAnyOrderElementsOf(expected);
  }

  /** An order. */
  public record Order(long id, String item) implements Serializable {}

  /** A shipment of an order. */
  public record Shipment(long orderId, String carrier) implements Serializable {}

  /** Joins orders and shipments by order id, whichever comes first. */
  public static final class Join extends KeyedCoProcessFunction<Long, Order, Shipment, String> {
    private static final long serialVersionUID = 1L;
    private transient ValueState<Order> order;
    private transient ValueState<Shipment> shipment;

    @Override
    public void open(OpenContext openContext) {
      order = getRuntimeContext().getState(new ValueStateDescriptor<>("order", Order.class));
      shipment =
          getRuntimeContext().getState(new ValueStateDescriptor<>("shipment", Shipment.class));
    }

    @Override
    public void processElement1(Order value, Context ctx, Collector<String> out) throws Exception {
      assertThat(ctx.getCurrentKey()).isEqualTo(value.id());
      Shipment s = shipment.value();
      if (s == null) {
        order.update(value);
      } else {
        shipment.clear();
        out.collect(value.id() + ":" + value.item() + ":" + s.carrier());
      }
    }

    @Override
    public void processElement2(Shipment value, Context ctx, Collector<String> out)
        throws Exception {
      assertThat(ctx.getCurrentKey()).isEqualTo(value.orderId());
      Order o = order.value();
      if (o == null) {
        shipment.update(value);
      } else {
        order.clear();
        out.collect(o.id() + ":" + o.item() + ":" + value.carrier());
      }
    }
  }

  @ParameterizedTest
  @ValueSource(ints = {1, 2, 4})
  void keyedConnectWithKeyedCoProcessFunction(int parallelism) throws Exception {
    StreamEnvironment env = env(parallelism);
    CollectSink<String> sink = new CollectSink<>();
    List<Order> orders = new ArrayList<>();
    List<Shipment> shipments = new ArrayList<>();
    for (long id = 1; id <= 20; id++) {
      orders.add(new Order(id, "item" + id));
      if (id % 4 != 0) { // every fourth order is never shipped
        shipments.add(new Shipment(id, "carrier" + (id % 3)));
      }
    }
    java.util.Collections.reverse(shipments); // shipments of late orders come first
    DataStream<Order> o = env.fromCollection(orders);
    DataStream<Shipment> s = env.fromCollection(shipments);
    o.keyBy(Order::id, Types.LONG)
        .connect(s.keyBy(Shipment::orderId, Types.LONG))
        .process(new Join())
        .sinkTo(sink);
    env.execute("keyed-connect");

    List<String> expected = new ArrayList<>();
    for (long id = 1; id <= 20; id++) {
      if (id % 4 != 0) {
        expected.add(id + ":item" + id + ":carrier" + (id % 3));
      }
    }
    assertThat(sink.results()).containsExactlyInAnyOrderElementsOf(expected);
  }

  @ParameterizedTest
  @ValueSource(ints = {1, 3})
  void connectedStreamsKeyByWithKeyedCoProcessFunction(int parallelism) throws Exception {
    StreamEnvironment env = env(parallelism);
    CollectSink<String> sink = new CollectSink<>();
    List<Order> orders = new ArrayList<>();
    List<Shipment> shipments = new ArrayList<>();
    for (long id = 1; id <= 12; id++) {
      orders.add(new Order(id, "item" + id));
      shipments.add(new Shipment(13 - id, "c" + id));
    }
    env.fromCollection(orders)
        .connect(env.fromCollection(shipments))
        .keyBy(Order::id, Shipment::orderId)
        .process(new Join())
        .sinkTo(sink);
    env.execute("connected-keyBy");

    List<String> expected = new ArrayList<>();
    for (long id = 1; id <= 12; id++) {
      expected.add(id + ":item" + id + ":c" + (13 - id));
    }
    assertThat(sink.results()).containsExactlyInAnyOrderElementsOf(expected);
  }

  /** Emits (value, subtask index, parallelism of this operator). */
  public static final class WhereAmI extends RichMapFunction<Long, Tuple3<Long, Integer, Integer>> {
    private static final long serialVersionUID = 1L;

    @Override
    public Tuple3<Long, Integer, Integer> map(Long value) {
      return Tuple3.of(
          value,
          getRuntimeContext().getIndexOfThisSubtask(),
          getRuntimeContext().getNumberOfParallelSubtasks());
    }
  }

  @Test
  void parallelismChangesBetweenOperators() throws Exception {
    StreamEnvironment env = env(2);
    CollectSink<Tuple3<Long, Integer, Integer>> sink = new CollectSink<>();
    env.fromSequence(1, 60)
        .setParallelism(1)
        .map(new WhereAmI())
        .setParallelism(3)
        .filter(t -> t.f0 % 2 == 0)
        .setParallelism(2)
        .sinkTo(sink)
        .setParallelism(4);
    env.execute("parallelism-changes");

    List<Tuple3<Long, Integer, Integer>> results = sink.results();
    assertThat(results)
        .extracting(t -> t.f0)
        .containsExactlyInAnyOrderElementsOf(
            range(1, 60).stream().filter(x -> x % 2 == 0).toList());
    assertThat(results).allSatisfy(t -> assertThat(t.f2).isEqualTo(3));
    // One producer rebalancing over 3 subtasks: each gets 20 of the 60 elements, 10 even ones.
    Map<Integer, Long> perSubtask =
        results.stream().collect(Collectors.groupingBy(t -> t.f1, Collectors.counting()));
    assertThat(perSubtask).containsOnlyKeys(0, 1, 2);
    assertThat(perSubtask.values()).containsOnly(10L);
  }

  @Test
  void nameAndUidAreAccepted() throws Exception {
    StreamEnvironment env = env(2);
    CollectSink<Long> sink = new CollectSink<>();
    env.fromSequence(1, 10)
        .name("Numbers")
        .uid("numbers-uid")
        .map(x -> x + 1)
        .name("Add One")
        .uid("add-one")
        .keyBy(x -> x % 2)
        .reduce(Long::sum)
        .name("Sum Per Parity")
        .uid("sum-uid")
        .sinkTo(sink)
        .name("Collect")
        .uid("collect-uid");
    JobExecutionResult result = env.execute("names");

    // Final sums: keys 0 (even x+1) and 1; running sums end with 2+4+...+10 and 3+5+...+11.
    Map<Long, Long> finals = new HashMap<>();
    for (Long v : sink.results()) {
      finals.merge(v % 2, v, Math::max);
    }
    assertThat(finals).containsEntry(0L, 30L).containsEntry(1L, 35L);
    assertThat(sink.results()).hasSize(10);
    assertThat(result.metrics().keySet())
        .anySatisfy(k -> assertThat(k).contains("Numbers").contains("Add One"))
        .anySatisfy(k -> assertThat(k).contains("Sum Per Parity").contains("Collect"));
  }
}

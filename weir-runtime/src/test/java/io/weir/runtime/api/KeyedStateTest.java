package io.weir.runtime.api;

import static org.assertj.core.api.Assertions.assertThat;

import io.weir.api.StreamEnvironment;
import io.weir.api.functions.AggregateFunction;
import io.weir.api.functions.Collector;
import io.weir.api.functions.KeyedProcessFunction;
import io.weir.api.functions.OpenContext;
import io.weir.api.functions.RichFilterFunction;
import io.weir.api.functions.RichFlatMapFunction;
import io.weir.api.functions.RichMapFunction;
import io.weir.api.state.AggregatingState;
import io.weir.api.state.AggregatingStateDescriptor;
import io.weir.api.state.ListState;
import io.weir.api.state.ListStateDescriptor;
import io.weir.api.state.MapState;
import io.weir.api.state.MapStateDescriptor;
import io.weir.api.state.ReducingState;
import io.weir.api.state.ReducingStateDescriptor;
import io.weir.api.state.ValueState;
import io.weir.api.state.ValueStateDescriptor;
import io.weir.api.tuple.Tuple2;
import io.weir.api.typeutils.Types;
import io.weir.runtime.testing.matrix.TestMatrix;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Keyed state semantics of every state kind, per key: a script of commands on interleaved keys runs
 * through one keyed function holding all five kinds of state, and every observation it emits is
 * compared with a plain-Java model of the same script.
 */
@Timeout(30)
@TestMatrix
public class KeyedStateTest {

  /** What the function does for one element: {@code add}, {@code get}, {@code clear}, ... */
  public record Cmd(String key, String op, long value) implements Serializable {}

  /** One observation of all states of one key. */
  public record Seen(String key, int seq, String state) {}

  static final long DEFAULT = 100L;

  /** Sum and count: the accumulator of an average. */
  public static final class Average implements AggregateFunction<Long, Tuple2<Long, Long>, String> {
    private static final long serialVersionUID = 1L;

    @Override
    public Tuple2<Long, Long> createAccumulator() {
      return Tuple2.of(0L, 0L);
    }

    @Override
    public Tuple2<Long, Long> add(Long value, Tuple2<Long, Long> acc) {
      return Tuple2.of(acc.f0 + value, acc.f1 + 1);
    }

    @Override
    public String getResult(Tuple2<Long, Long> acc) {
      return acc.f0 + "/" + acc.f1;
    }

    @Override
    public Tuple2<Long, Long> merge(Tuple2<Long, Long> a, Tuple2<Long, Long> b) {
      return Tuple2.of(a.f0 + b.f0, a.f1 + b.f1);
    }
  }

  /** Runs the commands against the five kinds of keyed state. */
  public static final class AllStates extends KeyedProcessFunction<String, Cmd, Seen> {
    private static final long serialVersionUID = 1L;
    private transient ValueState<Long> value;
    private transient ListState<Long> list;
    private transient MapState<String, Long> map;
    private transient ReducingState<Long> sum;
    private transient AggregatingState<Long, String> average;
    private transient ValueState<Integer> seq;

    @Override
    public void open(OpenContext openContext) {
      var ctx = getRuntimeContext();
      value = ctx.getState(new ValueStateDescriptor<>("value", Types.LONG, DEFAULT));
      list = ctx.getListState(new ListStateDescriptor<>("list", Types.LONG));
      map = ctx.getMapState(new MapStateDescriptor<>("map", Types.STRING, Types.LONG));
      sum = ctx.getReducingState(new ReducingStateDescriptor<>("sum", Long::sum, Types.LONG));
      average =
          ctx.getAggregatingState(
              new AggregatingStateDescriptor<>(
                  "average", new Average(), Types.TUPLE(Types.LONG, Types.LONG)));
      seq = ctx.getState(new ValueStateDescriptor<>("seq", Types.INT, 0));
    }

    @Override
    public void processElement(Cmd cmd, Context ctx, Collector<Seen> out) throws Exception {
      if (!cmd.key().equals(ctx.getCurrentKey())) {
        throw new IllegalStateException("current key " + ctx.getCurrentKey() + " for " + cmd);
      }
      switch (cmd.op()) {
        case "add" -> {
          value.update(value.value() + cmd.value());
          list.add(cmd.value());
          String mk = "m" + (cmd.value() % 3);
          Long old = map.get(mk);
          map.put(mk, old == null ? cmd.value() : old + cmd.value());
          sum.add(cmd.value());
          average.add(cmd.value());
        }
        case "removeMap" -> map.remove("m" + (cmd.value() % 3));
        case "nullValue" -> value.update(null);
        case "replaceList" -> list.update(List.of(cmd.value(), cmd.value() + 1));
        case "clear" -> {
          value.clear();
          list.clear();
          map.clear();
          sum.clear();
          average.clear();
        }
        case "get" -> {
          int n = seq.value() + 1;
          seq.update(n);
          out.collect(new Seen(cmd.key(), n, describe()));
        }
        default -> throw new IllegalArgumentException(cmd.op());
      }
    }

    private String describe() throws Exception {
      List<Long> l = new ArrayList<>();
      list.get().forEach(l::add);
      Map<String, Long> m = new TreeMap<>();
      map.entries().forEach(e -> m.put(e.getKey(), e.getValue()));
      List<String> keys = new ArrayList<>();
      map.keys().forEach(keys::add);
      List<Long> values = new ArrayList<>();
      map.values().forEach(values::add);
      if (keys.size() != m.size() || values.size() != m.size()) {
        throw new IllegalStateException("map keys/values disagree with entries: " + m);
      }
      return "value="
          + value.value()
          + " list="
          + l
          + " map="
          + m
          + " mapEmpty="
          + map.isEmpty()
          + " containsM0="
          + map.contains("m0")
          + " sum="
          + sum.get()
          + " avg="
          + average.get();
    }
  }

  /** The same semantics in plain Java, one model per key. */
  private static final class Model {
    Long value;
    List<Long> list = new ArrayList<>();
    Map<String, Long> map = new TreeMap<>();
    Long sum;
    long aggSum;
    long aggCount;
    boolean aggSet;
    int seq;

    void apply(Cmd cmd, List<Seen> out) {
      switch (cmd.op()) {
        case "add" -> {
          value = (value == null ? DEFAULT : value) + cmd.value();
          list.add(cmd.value());
          map.merge("m" + (cmd.value() % 3), cmd.value(), Long::sum);
          sum = sum == null ? cmd.value() : sum + cmd.value();
          aggSum += cmd.value();
          aggCount++;
          aggSet = true;
        }
        case "removeMap" -> map.remove("m" + (cmd.value() % 3));
        case "nullValue" -> value = null;
        case "replaceList" -> list = new ArrayList<>(List.of(cmd.value(), cmd.value() + 1));
        case "clear" -> {
          value = null;
          list = new ArrayList<>();
          map = new TreeMap<>();
          sum = null;
          aggSum = 0;
          aggCount = 0;
          aggSet = false;
        }
        case "get" -> {
          seq++;
          out.add(
              new Seen(
                  cmd.key(),
                  seq,
                  "value="
                      + (value == null ? DEFAULT : value)
                      + " list="
                      + list
                      + " map="
                      + map
                      + " mapEmpty="
                      + map.isEmpty()
                      + " containsM0="
                      + map.containsKey("m0")
                      + " sum="
                      + sum
                      + " avg="
                      + (aggSet ? aggSum + "/" + aggCount : null)));
        }
        default -> throw new IllegalArgumentException(cmd.op());
      }
    }
  }

  private static List<Cmd> script(long seed) {
    Random random = new Random(seed);
    String[] keys = {"a", "b", "c", "d", "e", "f", "g"};
    List<Cmd> cmds = new ArrayList<>();
    // Every key is read before it was ever written: defaults and empty states.
    for (String k : keys) {
      cmds.add(new Cmd(k, "get", 0));
    }
    for (int i = 0; i < 400; i++) {
      String k = keys[random.nextInt(keys.length)];
      int r = random.nextInt(100);
      String op;
      if (r < 50) {
        op = "add";
      } else if (r < 80) {
        op = "get";
      } else if (r < 86) {
        op = "clear";
      } else if (r < 91) {
        op = "removeMap";
      } else if (r < 95) {
        op = "nullValue";
      } else {
        op = "replaceList";
      }
      cmds.add(new Cmd(k, op, random.nextInt(50)));
    }
    for (String k : keys) {
      cmds.add(new Cmd(k, "get", 0));
    }
    return cmds;
  }

  @ParameterizedTest
  @ValueSource(ints = {1, 2, 3})
  void everyStateKindIsScopedToTheCurrentKey(int parallelism) throws Exception {
    List<Cmd> cmds = script(42 + parallelism);
    Map<String, Model> models = new HashMap<>();
    List<Seen> expected = new ArrayList<>();
    for (Cmd c : cmds) {
      models.computeIfAbsent(c.key(), k -> new Model()).apply(c, expected);
    }

    StreamEnvironment env = StreamEnvironment.create();
    env.setParallelism(parallelism);
    CollectSink<Seen> sink = new CollectSink<>();
    env.fromCollection(cmds).keyBy(Cmd::key, Types.STRING).process(new AllStates()).sinkTo(sink);
    env.execute("keyed-state");

    assertThat(sink.results()).containsExactlyInAnyOrderElementsOf(expected);
  }

  @ParameterizedTest
  @ValueSource(ints = {1, 2})
  void clearOfOneKeyLeavesOtherKeysAlone(int parallelism) throws Exception {
    List<Cmd> cmds = new ArrayList<>();
    for (long v = 1; v <= 3; v++) {
      for (String k : List.of("x", "y", "z")) {
        cmds.add(new Cmd(k, "add", v * 3)); // all into map key m0
      }
    }
    cmds.add(new Cmd("y", "clear", 0));
    for (String k : List.of("x", "y", "z")) {
      cmds.add(new Cmd(k, "get", 0));
    }
    StreamEnvironment env = StreamEnvironment.create();
    env.setParallelism(parallelism);
    CollectSink<Seen> sink = new CollectSink<>();
    env.fromCollection(cmds).keyBy(Cmd::key, Types.STRING).process(new AllStates()).sinkTo(sink);
    env.execute("clear-one-key");

    String full =
        "value=118 list=[3, 6, 9] map={m0=18} mapEmpty=false containsM0=true sum=18 avg=18/3";
    assertThat(sink.results())
        .containsExactlyInAnyOrder(
            new Seen("x", 1, full),
            new Seen(
                "y",
                1,
                "value=100 list=[] map={} mapEmpty=true containsM0=false sum=null avg=null"),
            new Seen("z", 1, full));
  }

  /**
   * Flink's documented keyed-state example (CountWindowAverage): a RichFlatMapFunction on a keyed
   * stream keeps a (count, sum) ValueState and emits the average of every two elements of a key.
   */
  public static final class CountWindowAverage
      extends RichFlatMapFunction<Tuple2<Long, Long>, Tuple2<Long, Long>> {
    private static final long serialVersionUID = 1L;
    private transient ValueState<Tuple2<Long, Long>> sum;

    @Override
    public void open(OpenContext openContext) {
      sum =
          getRuntimeContext()
              .getState(
                  new ValueStateDescriptor<>(
                      "average", Types.TUPLE(Types.LONG, Types.LONG), Tuple2.of(0L, 0L)));
    }

    @Override
    public void flatMap(Tuple2<Long, Long> input, Collector<Tuple2<Long, Long>> out)
        throws Exception {
      Tuple2<Long, Long> current = sum.value();
      Tuple2<Long, Long> next = Tuple2.of(current.f0 + 1, current.f1 + input.f1);
      if (next.f0 >= 2) {
        out.collect(Tuple2.of(input.f0, next.f1 / next.f0));
        sum.clear();
      } else {
        sum.update(next);
      }
    }
  }

  @ParameterizedTest
  @ValueSource(ints = {1, 2})
  void aRichFlatMapOnAKeyedStreamHasKeyedState(int parallelism) throws Exception {
    StreamEnvironment env = StreamEnvironment.create();
    env.setParallelism(parallelism);
    CollectSink<Tuple2<Long, Long>> sink = new CollectSink<>();
    env.fromCollection(
            List.of(
                Tuple2.of(1L, 3L),
                Tuple2.of(1L, 5L),
                Tuple2.of(1L, 7L),
                Tuple2.of(1L, 4L),
                Tuple2.of(1L, 2L)),
            Types.TUPLE(Types.LONG, Types.LONG))
        .keyBy(value -> value.f0, Types.LONG)
        .flatMap(new CountWindowAverage())
        .sinkTo(sink);
    env.execute("count-window-average");

    // Flink's documentation: the output is (1,4) and (1,5).
    assertThat(sink.results()).containsExactly(Tuple2.of(1L, 4L), Tuple2.of(1L, 5L));
  }

  /** Emits (key, number of elements of the key so far) from a ValueState in a RichMapFunction. */
  public static final class CountingMap extends RichMapFunction<String, String> {
    private static final long serialVersionUID = 1L;
    private transient ValueState<Long> count;

    @Override
    public void open(OpenContext openContext) {
      count = getRuntimeContext().getState(new ValueStateDescriptor<>("count", Types.LONG, 0L));
    }

    @Override
    public String map(String value) throws Exception {
      long n = count.value() + 1;
      count.update(n);
      return value + n;
    }
  }

  /** Lets through the first element of each key only, remembered in a ValueState. */
  public static final class FirstOfKey extends RichFilterFunction<String> {
    private static final long serialVersionUID = 1L;
    private transient ValueState<Boolean> seen;

    @Override
    public void open(OpenContext openContext) {
      seen = getRuntimeContext().getState(new ValueStateDescriptor<>("seen", Types.BOOLEAN));
    }

    @Override
    public boolean filter(String value) throws Exception {
      if (seen.value() != null) {
        return false;
      }
      seen.update(true);
      return true;
    }
  }

  @ParameterizedTest
  @ValueSource(ints = {1, 3})
  void richMapAndFilterOnAKeyedStreamHaveKeyedState(int parallelism) throws Exception {
    StreamEnvironment env = StreamEnvironment.create();
    env.setParallelism(parallelism);
    CollectSink<String> counted = new CollectSink<>();
    CollectSink<String> firsts = new CollectSink<>();
    List<String> input = List.of("a", "b", "a", "c", "b", "a", "d", "c");
    var keyed = env.fromCollection(input).keyBy(s -> s, Types.STRING);
    keyed.map(new CountingMap()).sinkTo(counted);
    keyed.filter(new FirstOfKey()).sinkTo(firsts);
    env.execute("keyed-rich-map-filter");

    assertThat(counted.results())
        .containsExactlyInAnyOrder("a1", "b1", "a2", "c1", "b2", "a3", "d1", "c2");
    assertThat(firsts.results()).containsExactlyInAnyOrder("a", "b", "c", "d");
  }
}

package io.weir.runtime.testing;

import io.weir.api.functions.AggregateFunction;
import io.weir.api.functions.Collector;
import io.weir.api.functions.KeyedProcessFunction;
import io.weir.api.functions.OpenContext;
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
import io.weir.runtime.testing.matrix.MatrixCell;
import io.weir.runtime.testing.matrix.TestMatrix;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Every kind of keyed state survives a snapshot + restore (and a crash + replay) at every point of
 * a script: each test drives a keyed process function that uses one kind, with a value 0 clearing
 * the key's state, and states the expected output by hand.
 */
@Timeout(60)
@TestMatrix(skip = MatrixCell.ROCKSDB_INCREMENTAL)
class KeyedStateHarnessTest {

  /** An element: a key and a value; {@code "a3"} is key a, value 3. */
  record Event(String key, long value) {
    static List<Event> of(String... events) {
      List<Event> list = new ArrayList<>();
      for (String e : events) {
        list.add(new Event(e.substring(0, 1), Long.parseLong(e.substring(1))));
      }
      return list;
    }
  }

  static final List<Event> SCRIPT = Event.of("a1", "b2", "a3", "c4", "b5", "a0", "a6", "b7", "c0");

  static <OUT> OneInputHarness<Event, OUT> harness(
      KeyedProcessFunction<String, Event, OUT> function,
      io.weir.api.typeutils.TypeInformation<OUT> out) {
    return OperatorHarness.forKeyedProcess(function, Event::key, Types.STRING, out).input(SCRIPT);
  }

  /** ValueState: count and sum per key. */
  static final class CountAndSum extends KeyedProcessFunction<String, Event, String> {
    private static final long serialVersionUID = 1L;
    private transient ValueState<Long> count;
    private transient ValueState<Long> sum;

    @Override
    public void open(OpenContext openContext) {
      count = getRuntimeContext().getState(new ValueStateDescriptor<>("count", Types.LONG, 0L));
      sum = getRuntimeContext().getState(new ValueStateDescriptor<>("sum", Types.LONG));
    }

    @Override
    public void processElement(Event e, Context ctx, Collector<String> out) throws Exception {
      if (e.value() == 0) {
        count.clear();
        sum.clear();
        out.collect(ctx.getCurrentKey() + " cleared");
        return;
      }
      count.update(count.value() + 1);
      sum.update(sum.value() == null ? e.value() : sum.value() + e.value());
      out.collect(e.key() + " count=" + count.value() + " sum=" + sum.value());
    }
  }

  @Test
  void valueState() {
    harness(new CountAndSum(), Types.STRING)
        .expectOutput(
            List.of(
                "a count=1 sum=1",
                "b count=1 sum=2",
                "a count=2 sum=4",
                "c count=1 sum=4",
                "b count=2 sum=7",
                "a cleared",
                "a count=1 sum=6",
                "b count=3 sum=14",
                "c cleared"))
        .verify();
  }

  /**
   * ValueState of Long keyed by Long, which the heap backend keeps as primitive pairs: key a is
   * {@code Long.MIN_VALUE}, the key its array cannot hold in a slot.
   */
  static final class CountPerLongKey extends KeyedProcessFunction<Long, Event, String> {
    private static final long serialVersionUID = 1L;
    private transient ValueState<Long> count;

    @Override
    public void open(OpenContext openContext) {
      count = getRuntimeContext().getState(new ValueStateDescriptor<>("count", Types.LONG));
    }

    @Override
    public void processElement(Event e, Context ctx, Collector<String> out) throws Exception {
      if (e.value() == 0) {
        count.clear();
        out.collect(ctx.getCurrentKey() + " cleared");
        return;
      }
      Long now = count.value();
      count.update(now == null ? e.value() : now + e.value());
      out.collect(ctx.getCurrentKey() + "=" + count.value());
    }
  }

  @Test
  void valueStateOfLongsKeyedByLong() {
    long a = Long.MIN_VALUE;
    OperatorHarness.forKeyedProcess(
            new CountPerLongKey(),
            (Event e) -> e.key().equals("a") ? Long.MIN_VALUE : (long) e.key().charAt(0),
            Types.LONG,
            Types.STRING)
        .input(SCRIPT)
        .input(Event.of("a2", "b1", "c3"))
        .expectOutput(
            List.of(
                a + "=1",
                "98=2",
                a + "=4",
                "99=4",
                "98=7",
                a + " cleared",
                a + "=6",
                "98=14",
                "99 cleared",
                a + "=8",
                "98=15",
                "99=3"))
        .verify();
  }

  /**
   * ValueState of {@code byte[]} keyed by Long, which the heap backend keeps as bytes in pages: an
   * odd value is appended to the key's bytes (a longer value, written elsewhere), an even one
   * replaces the first byte of the array read (the same length, written in place); key a is {@code
   * Long.MIN_VALUE}.
   */
  static final class BytesPerLongKey extends KeyedProcessFunction<Long, Event, String> {
    private static final long serialVersionUID = 1L;
    private transient ValueState<byte[]> bytes;

    @Override
    public void open(OpenContext openContext) {
      bytes = getRuntimeContext().getState(new ValueStateDescriptor<>("bytes", byte[].class));
    }

    @Override
    public void processElement(Event e, Context ctx, Collector<String> out) throws Exception {
      if (e.value() == 0) {
        bytes.clear();
        out.collect(ctx.getCurrentKey() + " cleared");
        return;
      }
      byte[] now = bytes.value();
      if (now == null || e.value() % 2 == 1) {
        byte[] longer = now == null ? new byte[1] : Arrays.copyOf(now, now.length + 1);
        longer[longer.length - 1] = (byte) e.value();
        bytes.update(longer);
      } else {
        now[0] = (byte) e.value();
        bytes.update(now);
      }
      out.collect(ctx.getCurrentKey() + "=" + HexFormat.of().formatHex(bytes.value()));
    }
  }

  @Test
  void valueStateOfBytesKeyedByLong() {
    long a = Long.MIN_VALUE;
    OperatorHarness.forKeyedProcess(
            new BytesPerLongKey(),
            (Event e) -> e.key().equals("a") ? Long.MIN_VALUE : (long) e.key().charAt(0),
            Types.LONG,
            Types.STRING)
        .input(SCRIPT)
        .input(Event.of("a2", "b1", "c3", "b4"))
        .expectOutput(
            List.of(
                a + "=01",
                "98=02",
                a + "=0103",
                "99=04",
                "98=0205",
                a + " cleared",
                a + "=06",
                "98=020507",
                "99 cleared",
                a + "=02",
                "98=02050701",
                "99=03",
                "98=04050701"))
        .verify();
  }

  /** ListState: the last three values per key. */
  static final class LastThree extends KeyedProcessFunction<String, Event, String> {
    private static final long serialVersionUID = 1L;
    private transient ListState<Long> last;

    @Override
    public void open(OpenContext openContext) {
      last = getRuntimeContext().getListState(new ListStateDescriptor<>("last", Types.LONG));
    }

    @Override
    public void processElement(Event e, Context ctx, Collector<String> out) throws Exception {
      if (e.value() == 0) {
        last.clear();
      } else {
        last.add(e.value());
        List<Long> values = new ArrayList<>();
        last.get().forEach(values::add);
        if (values.size() > 3) {
          last.update(values.subList(values.size() - 3, values.size()));
        }
      }
      List<Long> now = new ArrayList<>();
      last.get().forEach(now::add);
      out.collect(e.key() + " " + now);
    }
  }

  @Test
  void listState() {
    harness(new LastThree(), Types.STRING)
        .input(Event.of("a8", "a9"))
        .expectOutput(
            List.of(
                "a [1]",
                "b [2]",
                "a [1, 3]",
                "c [4]",
                "b [2, 5]",
                "a []",
                "a [6]",
                "b [2, 5, 7]",
                "c []",
                "a [6, 8]",
                "a [6, 8, 9]"))
        .verify();
  }

  /** MapState: how often each value was seen per key; the third sighting removes the entry. */
  static final class Sightings extends KeyedProcessFunction<String, Event, String> {
    private static final long serialVersionUID = 1L;
    private transient MapState<Long, Integer> seen;

    @Override
    public void open(OpenContext openContext) {
      seen =
          getRuntimeContext().getMapState(new MapStateDescriptor<>("seen", Types.LONG, Types.INT));
    }

    @Override
    public void processElement(Event e, Context ctx, Collector<String> out) throws Exception {
      if (e.value() == 0) {
        seen.clear();
      } else {
        Integer n = seen.get(e.value() % 3);
        if (n != null && n == 2) {
          seen.remove(e.value() % 3);
        } else {
          seen.put(e.value() % 3, n == null ? 1 : n + 1);
        }
      }
      Map<Long, Integer> sorted = new TreeMap<>();
      for (Map.Entry<Long, Integer> entry : seen.entries()) {
        sorted.put(entry.getKey(), entry.getValue());
      }
      out.collect(e.key() + " " + sorted + " empty=" + seen.isEmpty());
    }
  }

  @Test
  void mapState() {
    harness(new Sightings(), Types.STRING)
        .input(Event.of("b8", "b2"))
        .expectOutput(
            List.of(
                "a {1=1} empty=false",
                "b {2=1} empty=false",
                "a {0=1, 1=1} empty=false",
                "c {1=1} empty=false",
                "b {2=2} empty=false",
                "a {} empty=true",
                "a {0=1} empty=false",
                "b {1=1, 2=2} empty=false",
                "c {} empty=true",
                "b {1=1} empty=false",
                "b {1=1, 2=1} empty=false"))
        .verify();
  }

  /** ReducingState: the maximum per key. */
  static final class Maximum extends KeyedProcessFunction<String, Event, String> {
    private static final long serialVersionUID = 1L;
    private transient ReducingState<Long> max;

    @Override
    public void open(OpenContext openContext) {
      max =
          getRuntimeContext()
              .getReducingState(new ReducingStateDescriptor<>("max", Math::max, Types.LONG));
    }

    @Override
    public void processElement(Event e, Context ctx, Collector<String> out) throws Exception {
      if (e.value() == 0) {
        max.clear();
      } else {
        max.add(e.value());
      }
      out.collect(e.key() + " max=" + max.get());
    }
  }

  @Test
  void reducingState() {
    harness(new Maximum(), Types.STRING)
        .input(Event.of("b1"))
        .expectOutput(
            List.of(
                "a max=1",
                "b max=2",
                "a max=3",
                "c max=4",
                "b max=5",
                "a max=null",
                "a max=6",
                "b max=7",
                "c max=null",
                "b max=7"))
        .verify();
  }

  /** Sum and count, the accumulator of an average; a mutable tuple, so copy-on-write matters. */
  static final class Average implements AggregateFunction<Long, Tuple2<Long, Long>, String> {
    private static final long serialVersionUID = 1L;

    @Override
    public Tuple2<Long, Long> createAccumulator() {
      return Tuple2.of(0L, 0L);
    }

    @Override
    public Tuple2<Long, Long> add(Long value, Tuple2<Long, Long> acc) {
      acc.f0 += value;
      acc.f1 += 1;
      return acc;
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

  /** AggregatingState: the running average per key. */
  static final class Averages extends KeyedProcessFunction<String, Event, String> {
    private static final long serialVersionUID = 1L;
    private transient AggregatingState<Long, String> average;

    @Override
    public void open(OpenContext openContext) {
      average =
          getRuntimeContext()
              .getAggregatingState(
                  new AggregatingStateDescriptor<>(
                      "average", new Average(), Types.TUPLE(Types.LONG, Types.LONG)));
    }

    @Override
    public void processElement(Event e, Context ctx, Collector<String> out) throws Exception {
      if (e.value() == 0) {
        average.clear();
      } else {
        average.add(e.value());
      }
      out.collect(e.key() + " avg=" + average.get());
    }
  }

  @Test
  void aggregatingState() {
    harness(new Averages(), Types.STRING)
        .input(Event.of("b3"))
        .expectOutput(
            List.of(
                "a avg=1/1",
                "b avg=2/1",
                "a avg=4/2",
                "c avg=4/1",
                "b avg=7/2",
                "a avg=null",
                "a avg=6/1",
                "b avg=14/3",
                "c avg=null",
                "b avg=17/4"))
        .verify();
  }

  @Test
  void keysOfOneSubtaskOfSeveral() {
    // Subtask 1 of 2 owns key groups 64..127; pick keys that fall there.
    List<String> keys = new ArrayList<>();
    for (char c = 'a'; keys.size() < 3; c++) {
      String key = String.valueOf(c);
      if (io.weir.runtime.state.KeyGroupRangeAssignment.assignKeyToParallelOperator(key, 128, 2)
          == 1) {
        keys.add(key);
      }
    }
    List<Event> events = new ArrayList<>();
    List<String> expected = new ArrayList<>();
    for (int round = 1; round <= 2; round++) {
      for (String key : keys) {
        events.add(new Event(key, round));
        expected.add(key + " count=" + round + " sum=" + (round * (round + 1) / 2));
      }
    }
    OperatorHarness.forKeyedProcess(new CountAndSum(), Event::key, Types.STRING, Types.STRING)
        .subtask(1, 2)
        .input(events)
        .expectOutput(expected)
        .verify();
  }
}

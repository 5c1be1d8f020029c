package io.weir.runtime.testing;

import io.weir.api.DataStream;
import io.weir.api.KeyedStream;
import io.weir.api.StreamEnvironment;
import io.weir.api.WindowedStream;
import io.weir.api.functions.Collector;
import io.weir.api.functions.windowing.AllWindowFunction;
import io.weir.api.functions.windowing.WindowFunction;
import io.weir.api.tuple.Tuple3;
import io.weir.api.typeutils.TypeInformation;
import io.weir.api.typeutils.Types;
import io.weir.api.windowing.assigners.TumblingEventTimeWindows;
import io.weir.api.windowing.windows.GlobalWindow;
import io.weir.api.windowing.windows.TimeWindow;
import io.weir.runtime.testing.matrix.MatrixCell;
import io.weir.runtime.testing.matrix.TestMatrix;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.BinaryOperator;
import java.util.function.Function;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Flink's built-in aggregations through the harness, which restores the operator from a snapshot
 * before every step and crashes and replays it from checkpoints: keyed rolling {@code sum}, {@code
 * min}, {@code max}, {@code minBy}, {@code maxBy} by position and by name on tuples, records and
 * POJOs, the same on count windows and event-time windows, keyed and over all elements ({@code
 * windowAll}, {@code countWindowAll}), plus {@code apply(WindowFunction)} and {@code
 * apply(AllWindowFunction)}. The expected output is computed here in plain Java. Skips incremental
 * RocksDB, as the other harness suites but the window operator's do: the full RocksDB cell, whose
 * write cache holds one entry, already takes every read and write of the aggregations' state
 * through RocksDB, and the incremental cell added 47 s.
 */
@Timeout(120)
@TestMatrix(skip = MatrixCell.ROCKSDB_INCREMENTAL)
class AggregationsHarnessTest {

  static final TypeInformation<Tuple3<String, Integer, Long>> TRIPLE =
      Types.TUPLE(Types.STRING, Types.INT, Types.LONG);

  /** Key, a value with ties, a sequence number that tells which element survived. */
  static final List<Tuple3<String, Integer, Long>> TUPLES =
      List.of(
          Tuple3.of("a", 5, 1L),
          Tuple3.of("b", 7, 2L),
          Tuple3.of("a", 3, 3L),
          Tuple3.of("a", 3, 4L),
          Tuple3.of("b", 9, 5L),
          Tuple3.of("a", 8, 6L),
          Tuple3.of("b", 9, 7L),
          Tuple3.of("a", 1, 8L));

  /** A reading as a record. */
  public record Reading(String sensor, double value, long seq) {}

  /** A reading as a POJO: one public field, the others private with getters and setters. */
  public static class Measurement {
    public String sensor;
    private int value;
    private long seq;

    public Measurement() {}

    Measurement(String sensor, int value, long seq) {
      this.sensor = sensor;
      this.value = value;
      this.seq = seq;
    }

    public int getValue() {
      return value;
    }

    public void setValue(int value) {
      this.value = value;
    }

    public long getSeq() {
      return seq;
    }

    public void setSeq(long seq) {
      this.seq = seq;
    }

    @Override
    public boolean equals(Object o) {
      return o instanceof Measurement m
          && Objects.equals(sensor, m.sensor)
          && value == m.value
          && seq == m.seq;
    }

    @Override
    public int hashCode() {
      return Objects.hash(sensor, value, seq);
    }

    @Override
    public String toString() {
      return sensor + "/" + value + "/" + seq;
    }
  }

  static final List<Reading> READINGS =
      TUPLES.stream().map(t -> new Reading(t.f0, t.f1 / 2.0, t.f2)).toList();

  static final List<Measurement> MEASUREMENTS =
      TUPLES.stream().map(t -> new Measurement(t.f0, t.f1, t.f2)).toList();

  // ------------------------------------------------------------------ plain Java expectations

  /** The running result per key: what a rolling aggregation emits for each element. */
  static <T> List<T> rolling(List<T> input, Function<T, String> key, BinaryOperator<T> reduce) {
    Map<String, T> state = new HashMap<>();
    List<T> out = new ArrayList<>();
    for (T element : input) {
      T result = state.merge(key.apply(element), element, reduce);
      out.add(result);
    }
    return out;
  }

  /** One result per full window of {@code size} elements of a key, in firing order. */
  static <T> List<T> tumblingCount(
      List<T> input, Function<T, String> key, int size, BinaryOperator<T> reduce) {
    Map<String, List<T>> windows = new HashMap<>();
    List<T> out = new ArrayList<>();
    for (T element : input) {
      List<T> window = windows.computeIfAbsent(key.apply(element), k -> new ArrayList<>());
      window.add(element);
      if (window.size() == size) {
        out.add(window.stream().reduce(reduce).orElseThrow());
        window.clear();
      }
    }
    return out;
  }

  static Tuple3<String, Integer, Long> sum1(
      Tuple3<String, Integer, Long> a, Tuple3<String, Integer, Long> b) {
    return Tuple3.of(a.f0, a.f1 + b.f1, a.f2);
  }

  static Tuple3<String, Integer, Long> min1(
      Tuple3<String, Integer, Long> a, Tuple3<String, Integer, Long> b) {
    return Tuple3.of(a.f0, Math.min(a.f1, b.f1), a.f2);
  }

  static Tuple3<String, Integer, Long> max1(
      Tuple3<String, Integer, Long> a, Tuple3<String, Integer, Long> b) {
    return Tuple3.of(a.f0, Math.max(a.f1, b.f1), a.f2);
  }

  static Tuple3<String, Integer, Long> minBy1(
      Tuple3<String, Integer, Long> a, Tuple3<String, Integer, Long> b) {
    return b.f1 < a.f1 ? b : a;
  }

  static Tuple3<String, Integer, Long> minBy1Last(
      Tuple3<String, Integer, Long> a, Tuple3<String, Integer, Long> b) {
    return b.f1 <= a.f1 ? b : a;
  }

  static Tuple3<String, Integer, Long> maxBy1(
      Tuple3<String, Integer, Long> a, Tuple3<String, Integer, Long> b) {
    return b.f1 > a.f1 ? b : a;
  }

  static Tuple3<String, Integer, Long> maxBy1Last(
      Tuple3<String, Integer, Long> a, Tuple3<String, Integer, Long> b) {
    return b.f1 >= a.f1 ? b : a;
  }

  /** An element's event time: three times its sequence number, so 10 ms windows hold 2 or 3. */
  static long timestamp(Tuple3<String, Integer, Long> t) {
    return t.f2 * 3;
  }

  /**
   * One result per (key, 10 ms event-time window) that holds something, grouped by window in the
   * order the watermark fires them; {@code key} null puts every element of a window together.
   */
  static <T> List<T> tumblingTime(
      List<Tuple3<String, Integer, Long>> input,
      Function<Tuple3<String, Integer, Long>, String> key,
      BinaryOperator<Tuple3<String, Integer, Long>> reduce,
      Function<Tuple3<String, Integer, Long>, T> result) {
    Map<String, Tuple3<String, Integer, Long>> windows = new LinkedHashMap<>();
    for (Tuple3<String, Integer, Long> t : input) {
      String window = (timestamp(t) / 10) + "/" + (key == null ? "" : key.apply(t));
      windows.merge(window, t, reduce);
    }
    return windows.values().stream().map(result).toList();
  }

  /** {@link #TUPLES} with their timestamps, and the watermark past each 10 ms window. */
  static <OUT> OneInputHarness<Tuple3<String, Integer, Long>, OUT> withEventTime(
      OneInputHarness<Tuple3<String, Integer, Long>, OUT> harness) {
    long watermark = 0;
    for (Tuple3<String, Integer, Long> t : TUPLES) {
      long window = timestamp(t) / 10 * 10;
      if (window > watermark) {
        harness.watermark(window - 1);
        watermark = window;
      }
      harness.element(t, timestamp(t));
    }
    return harness.watermark(Long.MAX_VALUE);
  }

  private static void verifyEventTime(
      DataStream<Tuple3<String, Integer, Long>> stream,
      BinaryOperator<Tuple3<String, Integer, Long>> reduce,
      boolean keyed) {
    withEventTime(
            OperatorHarness.<Tuple3<String, Integer, Long>, Tuple3<String, Integer, Long>>forStream(
                stream))
        .expectOutputInAnyOrder(tumblingTime(TUPLES, keyed ? t -> t.f0 : null, reduce, t -> t))
        .verify();
  }

  private static KeyedStream<Tuple3<String, Integer, Long>, String> tuples() {
    return StreamEnvironment.create().fromCollection(TUPLES, TRIPLE).keyBy(t -> t.f0, Types.STRING);
  }

  private static void verify(
      DataStream<Tuple3<String, Integer, Long>> stream, List<Tuple3<String, Integer, Long>> out) {
    OperatorHarness.<Tuple3<String, Integer, Long>, Tuple3<String, Integer, Long>>forStream(stream)
        .input(TUPLES)
        .expectOutput(out)
        .verify();
  }

  // ------------------------------------------------------------------ keyed rolling

  @Test
  void rollingAggregationsOfATupleFieldByPosition() {
    verify(tuples().sum(1), rolling(TUPLES, t -> t.f0, AggregationsHarnessTest::sum1));
    verify(tuples().min(1), rolling(TUPLES, t -> t.f0, AggregationsHarnessTest::min1));
    verify(tuples().max(1), rolling(TUPLES, t -> t.f0, AggregationsHarnessTest::max1));
    verify(tuples().minBy(1), rolling(TUPLES, t -> t.f0, AggregationsHarnessTest::minBy1));
    verify(tuples().maxBy(1), rolling(TUPLES, t -> t.f0, AggregationsHarnessTest::maxBy1));
    verify(
        tuples().minBy(1, false), rolling(TUPLES, t -> t.f0, AggregationsHarnessTest::minBy1Last));
    verify(
        tuples().maxBy(1, false), rolling(TUPLES, t -> t.f0, AggregationsHarnessTest::maxBy1Last));
  }

  @Test
  void rollingAggregationsOfATupleFieldByName() {
    verify(tuples().sum("f1"), rolling(TUPLES, t -> t.f0, AggregationsHarnessTest::sum1));
    verify(tuples().min("f1"), rolling(TUPLES, t -> t.f0, AggregationsHarnessTest::min1));
    verify(tuples().maxBy("f1"), rolling(TUPLES, t -> t.f0, AggregationsHarnessTest::maxBy1));
  }

  @Test
  void rollingAggregationsOfARecordComponent() {
    StreamEnvironment env = StreamEnvironment.create();
    KeyedStream<Reading, String> keyed =
        env.fromCollection(READINGS, Types.RECORD(Reading.class))
            .keyBy(Reading::sensor, Types.STRING);
    OperatorHarness.<Reading, Reading>forStream(keyed.sum("value"))
        .input(READINGS)
        .expectOutput(
            rolling(
                READINGS,
                Reading::sensor,
                (a, b) -> new Reading(a.sensor(), a.value() + b.value(), a.seq())))
        .verify();
    OperatorHarness.<Reading, Reading>forStream(keyed.max(1))
        .input(READINGS)
        .expectOutput(
            rolling(
                READINGS,
                Reading::sensor,
                (a, b) -> new Reading(a.sensor(), Math.max(a.value(), b.value()), a.seq())))
        .verify();
    OperatorHarness.<Reading, Reading>forStream(keyed.minBy("value"))
        .input(READINGS)
        .expectOutput(rolling(READINGS, Reading::sensor, (a, b) -> b.value() < a.value() ? b : a))
        .verify();
  }

  @Test
  void rollingAggregationsOfAPojoField() {
    StreamEnvironment env = StreamEnvironment.create();
    KeyedStream<Measurement, String> keyed =
        env.fromCollection(MEASUREMENTS, TypeInformation.of(Measurement.class))
            .keyBy(m -> m.sensor, Types.STRING);
    OperatorHarness.<Measurement, Measurement>forStream(keyed.sum("value"))
        .input(MEASUREMENTS)
        .expectOutput(
            rolling(
                MEASUREMENTS,
                m -> m.sensor,
                (a, b) -> new Measurement(a.sensor, a.value + b.value, a.seq)))
        .verify();
    OperatorHarness.<Measurement, Measurement>forStream(keyed.min("value"))
        .input(MEASUREMENTS)
        .expectOutput(
            rolling(
                MEASUREMENTS,
                m -> m.sensor,
                (a, b) -> new Measurement(a.sensor, Math.min(a.value, b.value), a.seq)))
        .verify();
    OperatorHarness.<Measurement, Measurement>forStream(keyed.maxBy("value", false))
        .input(MEASUREMENTS)
        .expectOutput(rolling(MEASUREMENTS, m -> m.sensor, (a, b) -> b.value >= a.value ? b : a))
        .verify();
  }

  @Test
  void rollingMinOfNumbersThemselves() {
    StreamEnvironment env = StreamEnvironment.create();
    List<Long> numbers = List.of(5L, 6L, 3L, 8L, 1L, 2L);
    var mins = env.fromCollection(numbers, Types.LONG).keyBy(v -> v % 2, Types.LONG).min(0);
    OperatorHarness.<Long, Long>forStream(mins)
        .input(numbers)
        .expectOutput(rolling(numbers, v -> String.valueOf(v % 2), Math::min))
        .verify();
  }

  // ------------------------------------------------------------------ count windows

  @Test
  void countWindowAggregations() {
    verify(
        tuples().countWindow(2).sum(1),
        tumblingCount(TUPLES, t -> t.f0, 2, AggregationsHarnessTest::sum1));
    verify(
        tuples().countWindow(2).min("f1"),
        tumblingCount(TUPLES, t -> t.f0, 2, AggregationsHarnessTest::min1));
    verify(
        tuples().countWindow(2).max(1),
        tumblingCount(TUPLES, t -> t.f0, 2, AggregationsHarnessTest::max1));
    verify(
        tuples().countWindow(2).minBy(1),
        tumblingCount(TUPLES, t -> t.f0, 2, AggregationsHarnessTest::minBy1));
    verify(
        tuples().countWindow(2).maxBy("f1", false),
        tumblingCount(TUPLES, t -> t.f0, 2, AggregationsHarnessTest::maxBy1Last));
  }

  @Test
  void slidingCountWindowSumsTheLastSizeElementsEverySlide() {
    // size 3, slide 2: fires at every 2nd element of a key with the sum of its last (up to) 3.
    Map<String, List<Tuple3<String, Integer, Long>>> seen = new HashMap<>();
    List<Tuple3<String, Integer, Long>> expected = new ArrayList<>();
    for (Tuple3<String, Integer, Long> t : TUPLES) {
      List<Tuple3<String, Integer, Long>> all = seen.computeIfAbsent(t.f0, k -> new ArrayList<>());
      all.add(t);
      if (all.size() % 2 == 0) {
        List<Tuple3<String, Integer, Long>> last =
            all.subList(Math.max(0, all.size() - 3), all.size());
        expected.add(last.stream().reduce(AggregationsHarnessTest::sum1).orElseThrow());
      }
    }
    verify(tuples().countWindow(3, 2).sum(1), expected);
  }

  // ------------------------------------------------------------------ event-time windows

  private static WindowedStream<Tuple3<String, Integer, Long>, String, TimeWindow> tenMillis() {
    return tuples().window(TumblingEventTimeWindows.of(Duration.ofMillis(10)));
  }

  @Test
  void eventTimeWindowAggregations() {
    // The count-window test covers each aggregation; these take the time windows' path.
    verifyEventTime(tenMillis().sum(1), AggregationsHarnessTest::sum1, true);
    verifyEventTime(tenMillis().min("f1"), AggregationsHarnessTest::min1, true);
    verifyEventTime(tenMillis().maxBy("f1", false), AggregationsHarnessTest::maxBy1Last, true);
  }

  // ------------------------------------------------------------------ over all elements

  private static DataStream<Tuple3<String, Integer, Long>> all() {
    return StreamEnvironment.create().fromCollection(TUPLES, TRIPLE);
  }

  @Test
  void windowAllAggregations() {
    var tenMillis = TumblingEventTimeWindows.of(Duration.ofMillis(10));
    verifyEventTime(all().windowAll(tenMillis).sum(1), AggregationsHarnessTest::sum1, false);
    verifyEventTime(
        all().windowAll(tenMillis).minBy("f1", false), AggregationsHarnessTest::minBy1Last, false);
  }

  @Test
  void countWindowAllAggregations() {
    verify(
        all().countWindowAll(3).sum(1),
        tumblingCount(TUPLES, t -> "", 3, AggregationsHarnessTest::sum1));
    verify(
        all().countWindowAll(2).minBy(1),
        tumblingCount(TUPLES, t -> "", 2, AggregationsHarnessTest::minBy1));
  }

  /** "window size:sum of f1" for each window of all elements. */
  static final class DescribeAll
      implements AllWindowFunction<Tuple3<String, Integer, Long>, String, GlobalWindow> {
    private static final long serialVersionUID = 1L;

    @Override
    public void apply(
        GlobalWindow window, Iterable<Tuple3<String, Integer, Long>> input, Collector<String> out) {
      int n = 0;
      int sum = 0;
      for (Tuple3<String, Integer, Long> t : input) {
        n++;
        sum += t.f1;
      }
      out.collect(n + ":" + sum);
    }
  }

  @Test
  void applyAllWindowFunction() {
    List<String> expected =
        tumblingCount(TUPLES, t -> "", 3, AggregationsHarnessTest::sum1).stream()
            .map(t -> "3:" + t.f1)
            .toList();
    OperatorHarness.<Tuple3<String, Integer, Long>, String>forStream(
            all().countWindowAll(3).apply(new DescribeAll()))
        .input(TUPLES)
        .expectOutput(expected)
        .verify();
  }

  /** "key:window size:sum of f1" for each window. */
  static final class Describe
      implements WindowFunction<Tuple3<String, Integer, Long>, String, String, GlobalWindow> {
    private static final long serialVersionUID = 1L;

    @Override
    public void apply(
        String key,
        GlobalWindow window,
        Iterable<Tuple3<String, Integer, Long>> input,
        Collector<String> out) {
      int n = 0;
      int sum = 0;
      for (Tuple3<String, Integer, Long> t : input) {
        n++;
        sum += t.f1;
      }
      out.collect(key + ":" + n + ":" + sum);
    }
  }

  @Test
  void applyWindowFunction() {
    List<String> expected =
        tumblingCount(TUPLES, t -> t.f0, 3, AggregationsHarnessTest::sum1).stream()
            .map(t -> t.f0 + ":3:" + t.f1)
            .toList();
    OperatorHarness.<Tuple3<String, Integer, Long>, String>forStream(
            tuples().countWindow(3).apply(new Describe()))
        .input(TUPLES)
        .expectOutput(expected)
        .verify();
  }
}

package io.weir.runtime.api;

import static org.assertj.core.api.Assertions.assertThat;

import io.weir.api.DataStream;
import io.weir.api.StreamEnvironment;
import io.weir.api.eventtime.Watermark;
import io.weir.api.eventtime.WatermarkGenerator;
import io.weir.api.eventtime.WatermarkOutput;
import io.weir.api.eventtime.WatermarkStrategy;
import io.weir.api.functions.CoGroupFunction;
import io.weir.api.functions.Collector;
import io.weir.api.functions.JoinFunction;
import io.weir.api.functions.ProcessJoinFunction;
import io.weir.api.tuple.Tuple2;
import io.weir.api.typeutils.TypeInformation;
import io.weir.api.typeutils.Types;
import io.weir.api.windowing.assigners.TumblingEventTimeWindows;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Window joins, window coGroups and interval joins in running jobs, at parallelism 2. */
@Timeout(60)
class JoinJobTest {

  private static final TypeInformation<Tuple2<String, Long>> EVENT =
      Types.TUPLE(Types.STRING, Types.LONG);

  /** A watermark at every record's timestamp: event time that does not depend on timing. */
  static final class EveryRecord<T> implements WatermarkGenerator<T> {
    @Override
    public void onEvent(T event, long eventTimestamp, WatermarkOutput output) {
      output.emitWatermark(new Watermark(eventTimestamp));
    }

    @Override
    public void onPeriodicEmit(WatermarkOutput output) {}
  }

  /** (key, time) events with event time {@code time}. */
  private static DataStream<Tuple2<String, Long>> events(
      StreamEnvironment env, List<Tuple2<String, Long>> events) {
    return env.fromCollection(events, EVENT)
        .setParallelism(1)
        .assignTimestampsAndWatermarks(
            WatermarkStrategy.<Tuple2<String, Long>>forGenerator(ctx -> new EveryRecord<>())
                .withTimestampAssigner((e, ts) -> e.f1))
        .setParallelism(1);
  }

  static final class Concat
      implements JoinFunction<Tuple2<String, Long>, Tuple2<String, Long>, String> {
    private static final long serialVersionUID = 1L;

    @Override
    public String join(Tuple2<String, Long> first, Tuple2<String, Long> second) {
      return first.f0 + first.f1 + "+" + second.f0 + second.f1;
    }
  }

  static final class Pair
      extends ProcessJoinFunction<Tuple2<String, Long>, Tuple2<String, Long>, String> {
    private static final long serialVersionUID = 1L;

    @Override
    public void processElement(
        Tuple2<String, Long> left, Tuple2<String, Long> right, Context ctx, Collector<String> out) {
      out.collect(left.f0 + left.f1 + "+" + right.f0 + right.f1 + "@" + ctx.getTimestamp());
    }
  }

  @Test
  void aWindowJoinPairsTheElementsOfEachKeyAndWindow() throws Exception {
    StreamEnvironment env = StreamEnvironment.create();
    env.setParallelism(2);
    DataStream<Tuple2<String, Long>> orders =
        events(
            env,
            List.of(
                Tuple2.of("a", 1L), Tuple2.of("b", 2L), Tuple2.of("a", 5L), Tuple2.of("a", 12L)));
    DataStream<Tuple2<String, Long>> payments =
        events(
            env,
            List.of(
                Tuple2.of("a", 3L), Tuple2.of("a", 9L), Tuple2.of("b", 14L), Tuple2.of("a", 19L)));
    CollectSink<String> sink = new CollectSink<>();
    orders
        .join(payments)
        .where(e -> e.f0, Types.STRING)
        .equalTo(e -> e.f0)
        .window(TumblingEventTimeWindows.of(Duration.ofMillis(10)))
        .apply(new Concat())
        .sinkTo(sink);
    env.execute("window-join");

    // [0,10): a1, a5 with a3, a9; b2 alone. [10,20): a12 with a19; b14 alone.
    assertThat(sink.results())
        .containsExactlyInAnyOrder("a1+a3", "a1+a9", "a5+a3", "a5+a9", "a12+a19");
  }

  @Test
  void aWindowCoGroupGetsBothSidesOfEachKeyAndWindow() throws Exception {
    StreamEnvironment env = StreamEnvironment.create();
    env.setParallelism(2);
    DataStream<Tuple2<String, Long>> orders =
        events(
            env,
            List.of(
                Tuple2.of("a", 1L), Tuple2.of("b", 2L), Tuple2.of("a", 5L), Tuple2.of("a", 12L)));
    DataStream<Tuple2<String, Long>> payments =
        events(
            env,
            List.of(
                Tuple2.of("a", 3L), Tuple2.of("a", 9L), Tuple2.of("b", 14L), Tuple2.of("a", 19L)));
    CollectSink<String> sink = new CollectSink<>();
    orders
        .coGroup(payments)
        .where(e -> e.f0, Types.STRING)
        .equalTo(e -> e.f0)
        .window(TumblingEventTimeWindows.of(Duration.ofMillis(10)))
        .apply(
            (CoGroupFunction<Tuple2<String, Long>, Tuple2<String, Long>, String>)
                (first, second, out) -> {
                  long sum1 = 0;
                  long sum2 = 0;
                  String key = null;
                  for (Tuple2<String, Long> e : first) {
                    sum1 += e.f1;
                    key = e.f0;
                  }
                  for (Tuple2<String, Long> e : second) {
                    sum2 += e.f1;
                    key = e.f0;
                  }
                  out.collect(key + ":" + sum1 + "|" + sum2);
                },
            Types.STRING)
        .sinkTo(sink);
    env.execute("window-coGroup");

    // [0,10): a (1+5 | 3+9), b (2 | -). [10,20): a (12 | 19), b (- | 14).
    assertThat(sink.results()).containsExactlyInAnyOrder("a:6|12", "b:2|0", "a:12|19", "b:0|14");
  }

  @Test
  void anIntervalJoinPairsElementsWithinTheBounds() throws Exception {
    StreamEnvironment env = StreamEnvironment.create();
    env.setParallelism(2);
    DataStream<Tuple2<String, Long>> left =
        events(env, List.of(Tuple2.of("a", 10L), Tuple2.of("b", 10L), Tuple2.of("a", 20L)));
    DataStream<Tuple2<String, Long>> right =
        events(
            env,
            List.of(
                Tuple2.of("a", 8L), Tuple2.of("a", 12L), Tuple2.of("b", 14L), Tuple2.of("a", 30L)));
    CollectSink<String> sink = new CollectSink<>();
    left.keyBy(e -> e.f0, Types.STRING)
        .intervalJoin(right.keyBy(e -> e.f0, Types.STRING))
        .between(Duration.ofMillis(-2), Duration.ofMillis(3))
        .process(new Pair())
        .sinkTo(sink);
    env.execute("interval-join");

    assertThat(sink.results()).containsExactlyInAnyOrder("a10+a8@10", "a10+a12@12");
  }
}

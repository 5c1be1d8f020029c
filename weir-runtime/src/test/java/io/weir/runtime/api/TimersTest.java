package io.weir.runtime.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.weir.api.JobClient;
import io.weir.api.JobStatus;
import io.weir.api.StreamEnvironment;
import io.weir.api.functions.Collector;
import io.weir.api.functions.KeyedProcessFunction;
import io.weir.api.functions.OpenContext;
import io.weir.api.functions.TimeDomain;
import io.weir.api.state.ValueState;
import io.weir.api.state.ValueStateDescriptor;
import io.weir.api.tuple.Tuple2;
import io.weir.api.typeutils.Types;
import io.weir.runtime.testing.matrix.TestMatrix;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Event-time timers at the end of bounded input, and processing-time timers while running. */
@Timeout(30)
@TestMatrix
public class TimersTest {

  /** A timer that fired: its key and time, and what the function saw then. */
  public record Fired(String key, long timestamp, String domain, long elementsOfKey, Long ctxTs) {}

  /**
   * For (key, t): t >= 0 registers an event-time timer at t, t < 0 deletes the one at -t. Counts
   * the elements of each key in keyed state, which {@code onTimer} reads.
   */
  public static final class EventTimers
      extends KeyedProcessFunction<String, Tuple2<String, Long>, Fired> {
    private static final long serialVersionUID = 1L;
    private transient ValueState<Long> count;

    @Override
    public void open(OpenContext openContext) {
      count = getRuntimeContext().getState(new ValueStateDescriptor<>("count", Types.LONG, 0L));
    }

    @Override
    public void processElement(Tuple2<String, Long> value, Context ctx, Collector<Fired> out)
        throws Exception {
      count.update(count.value() + 1);
      if (value.f1 >= 0) {
        ctx.timerService().registerEventTimeTimer(value.f1);
      } else {
        ctx.timerService().deleteEventTimeTimer(-value.f1);
      }
    }

    @Override
    public void onTimer(long timestamp, OnTimerContext ctx, Collector<Fired> out) throws Exception {
      out.collect(
          new Fired(
              ctx.getCurrentKey(),
              timestamp,
              ctx.timeDomain().name(),
              count.value(),
              ctx.timestamp()));
    }
  }

  @ParameterizedTest
  @ValueSource(ints = {1, 2, 3})
  void eventTimeTimersFireAtTheEndOfBoundedInput(int parallelism) throws Exception {
    List<Tuple2<String, Long>> input = new ArrayList<>();
    String[] keys = {"a", "b", "c", "d"};
    for (int i = 0; i < 80; i++) {
      String k = keys[(i * 7) % keys.length];
      long t = (i * 37L) % 50; // repeats: one timer per key and timestamp
      input.add(Tuple2.of(k, i % 9 == 8 ? -t : t));
    }
    Map<String, TreeSet<Long>> timers = new HashMap<>();
    Map<String, Long> counts = new HashMap<>();
    for (Tuple2<String, Long> e : input) {
      counts.merge(e.f0, 1L, Long::sum);
      TreeSet<Long> set = timers.computeIfAbsent(e.f0, k -> new TreeSet<>());
      if (e.f1 >= 0) {
        set.add(e.f1);
      } else {
        set.remove(-e.f1);
      }
    }
    Map<String, List<Fired>> expected = new HashMap<>();
    timers.forEach(
        (k, set) -> {
          List<Fired> list = new ArrayList<>();
          for (long t : set) {
            list.add(new Fired(k, t, TimeDomain.EVENT_TIME.name(), counts.get(k), t));
          }
          expected.put(k, list);
        });

    StreamEnvironment env = StreamEnvironment.create();
    env.setParallelism(parallelism);
    CollectSink<Fired> sink = new CollectSink<>();
    env.fromCollection(input, Types.TUPLE(Types.STRING, Types.LONG))
        .keyBy(t -> t.f0, Types.STRING)
        .process(new EventTimers())
        .sinkTo(sink)
        .setParallelism(1); // across the network, after the final timers fired
    env.execute("event-time-timers");

    // Every timer fired exactly once, after all input (the count is final), in timestamp order
    // per key; deleted timers did not fire.
    Map<String, List<Fired>> actual = new HashMap<>();
    for (Fired f : sink.results()) {
      actual.computeIfAbsent(f.key(), k -> new ArrayList<>()).add(f);
    }
    assertThat(actual).isEqualTo(expected);
  }

  /**
   * On the first element of a key, registers two processing-time timers and deletes the earlier.
   * The kept timer re-registers itself 10 ms later until it fired three times.
   */
  public static final class ProcessingTimers extends KeyedProcessFunction<Long, Long, Fired> {
    private static final long serialVersionUID = 1L;
    private transient ValueState<Long> kept;
    private transient ValueState<Long> fired;

    @Override
    public void open(OpenContext openContext) {
      kept = getRuntimeContext().getState(new ValueStateDescriptor<>("kept", Types.LONG));
      fired = getRuntimeContext().getState(new ValueStateDescriptor<>("fired", Types.LONG, 0L));
    }

    @Override
    public void processElement(Long value, Context ctx, Collector<Fired> out) throws Exception {
      if (kept.value() == null) {
        long now = ctx.timerService().currentProcessingTime();
        ctx.timerService().registerProcessingTimeTimer(now + 20);
        ctx.timerService().registerProcessingTimeTimer(now + 40);
        ctx.timerService().deleteProcessingTimeTimer(now + 20);
        kept.update(now + 40);
      }
    }

    @Override
    public void onTimer(long timestamp, OnTimerContext ctx, Collector<Fired> out) throws Exception {
      long n = fired.value() + 1;
      fired.update(n);
      long expectedTimestamp = kept.value() + 10 * (n - 1);
      if (timestamp != expectedTimestamp) {
        throw new IllegalStateException(
            "timer at " + timestamp + " fired, expected " + expectedTimestamp);
      }
      if (ctx.timerService().currentProcessingTime() < timestamp) {
        throw new IllegalStateException("timer at " + timestamp + " fired early");
      }
      out.collect(
          new Fired("k" + ctx.getCurrentKey(), timestamp, ctx.timeDomain().name(), n, null));
      if (n < 3) {
        ctx.timerService().registerProcessingTimeTimer(timestamp + 10);
      }
    }
  }

  @Test
  void processingTimeTimersFireWhileTheJobRuns() throws Exception {
    StreamEnvironment env = StreamEnvironment.create();
    env.setParallelism(2);
    CollectSink<Fired> sink = new CollectSink<>();
    env.fromSource(UnboundedSource.emitting(10, 2), "Ticks")
        .setParallelism(1)
        .keyBy(x -> x % 2)
        .process(new ProcessingTimers())
        .sinkTo(sink);
    JobClient client = env.executeAsync("processing-time-timers");
    try {
      await()
          .atMost(Duration.ofSeconds(10))
          .pollInterval(Duration.ofMillis(5))
          .until(() -> sink.size() >= 6 || client.getJobExecutionResult().isDone());
      assertThat(client.getJobExecutionResult()).isNotDone();
      assertThat(client.getJobStatus().get()).isEqualTo(JobStatus.RUNNING);
    } finally {
      client.cancel().get(10, TimeUnit.SECONDS);
    }

    List<Fired> fired = sink.results();
    assertThat(fired).hasSize(6);
    assertThat(fired).allSatisfy(f -> assertThat(f.domain()).isEqualTo("PROCESSING_TIME"));
    for (String key : List.of("k0", "k1")) {
      List<Fired> ofKey = fired.stream().filter(f -> f.key().equals(key)).toList();
      assertThat(ofKey).extracting(Fired::elementsOfKey).containsExactly(1L, 2L, 3L);
      assertThat(ofKey.get(1).timestamp() - ofKey.get(0).timestamp()).isEqualTo(10);
      assertThat(ofKey.get(2).timestamp() - ofKey.get(1).timestamp()).isEqualTo(10);
    }
  }
}

package io.weir.runtime.local;

import static org.assertj.core.api.Assertions.assertThat;

import io.weir.api.JobExecutionResult;
import io.weir.api.RestartStrategy;
import io.weir.api.StreamEnvironment;
import io.weir.api.functions.CheckpointListener;
import io.weir.api.functions.Collector;
import io.weir.api.functions.KeyedProcessFunction;
import io.weir.api.functions.OpenContext;
import io.weir.api.functions.RichMapFunction;
import io.weir.api.functions.SinkFunction;
import io.weir.api.state.ValueState;
import io.weir.api.state.ValueStateDescriptor;
import io.weir.api.tuple.Tuple2;
import io.weir.api.typeutils.Types;
import io.weir.runtime.testing.matrix.TestMatrix;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/** Timers live in keyed state: those registered before a checkpoint fire after a restore. */
@TestMatrix
class TimersRecoveryTest {

  static final Queue<Tuple2<Long, Long>> FIRED = new ConcurrentLinkedQueue<>();
  static final AtomicBoolean FAIL_ONCE = new AtomicBoolean();

  /** Fails subtask 0 once, shortly after the first completed checkpoint. */
  static final class FailOnce extends RichMapFunction<Long, Long> implements CheckpointListener {
    private static final long serialVersionUID = 1L;
    private transient long countdown;

    @Override
    public void open(OpenContext openContext) {
      countdown = -1;
    }

    @Override
    public void notifyCheckpointComplete(long checkpointId) {
      if (countdown < 0 && getRuntimeContext().getIndexOfThisSubtask() == 0) {
        countdown = 1000;
      }
    }

    @Override
    public Long map(Long value) {
      if (countdown > 0 && --countdown == 0 && FAIL_ONCE.compareAndSet(true, false)) {
        throw new IllegalStateException("injected");
      }
      return value;
    }
  }

  /** Counts per key and registers one event-time timer per key that reports the count. */
  static final class CountAtEnd extends KeyedProcessFunction<Long, Long, Tuple2<Long, Long>> {
    private static final long serialVersionUID = 1L;
    private transient ValueState<Long> count;

    @Override
    public void open(OpenContext openContext) {
      count = getRuntimeContext().getState(new ValueStateDescriptor<>("count", Types.LONG));
    }

    @Override
    public void processElement(Long value, Context ctx, Collector<Tuple2<Long, Long>> out)
        throws Exception {
      Long c = count.value();
      count.update(c == null ? 1 : c + 1);
      ctx.timerService().registerEventTimeTimer(Long.MAX_VALUE - 1);
    }

    @Override
    public void onTimer(long timestamp, OnTimerContext ctx, Collector<Tuple2<Long, Long>> out)
        throws Exception {
      out.collect(Tuple2.of(ctx.getCurrentKey(), count.value()));
    }
  }

  @Test
  void timersRegisteredBeforeACheckpointFireAfterTheRestore() throws Exception {
    FIRED.clear();
    FAIL_ONCE.set(true);
    long n = 3_000_000;
    int keys = 100;
    StreamEnvironment env = StreamEnvironment.create();
    env.setParallelism(2);
    env.enableCheckpointing(Duration.ofMillis(20));
    env.setRestartStrategy(RestartStrategy.fixedDelay(2, Duration.ZERO));
    env.fromSequence(1, n)
        .map(new FailOnce())
        .keyBy(i -> i % keys)
        .process(new CountAtEnd())
        .returns(Types.TUPLE(Types.LONG, Types.LONG))
        .addSink((SinkFunction<Tuple2<Long, Long>>) (v, ctx) -> FIRED.add(v));

    JobExecutionResult result = env.execute("timers-recovery");

    assertThat(result.metrics().get("job.restarts")).isEqualTo(1L);
    Map<Long, Long> expected = new HashMap<>();
    for (long i = 1; i <= n; i++) {
      expected.merge(i % keys, 1L, Long::sum);
    }
    Map<Long, Long> fired = new HashMap<>();
    for (Tuple2<Long, Long> t : List.copyOf(FIRED)) {
      assertThat(fired.put(t.f0, t.f1)).as("timer of key %s fired twice", t.f0).isNull();
    }
    assertThat(fired).isEqualTo(expected);
  }
}

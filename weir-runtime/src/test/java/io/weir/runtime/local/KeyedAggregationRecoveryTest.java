package io.weir.runtime.local;

import static org.assertj.core.api.Assertions.assertThat;

import io.weir.api.JobExecutionResult;
import io.weir.api.RestartStrategy;
import io.weir.api.StreamEnvironment;
import io.weir.api.functions.CheckpointListener;
import io.weir.api.functions.OpenContext;
import io.weir.api.functions.RichMapFunction;
import io.weir.api.functions.SinkFunction;
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

/**
 * Keyed rolling aggregations keep their running values in keyed state: a job that fails after a
 * checkpoint and restarts from it ends with the plain-Java totals, on every backend of the matrix.
 * The sink sees the results emitted after the checkpoint twice, so the test compares each key's
 * largest result (the sums and maxima only grow), which a lost or doubled state would change.
 */
@TestMatrix
class KeyedAggregationRecoveryTest {

  static final Queue<Tuple2<Long, Long>> SUMS = new ConcurrentLinkedQueue<>();
  static final Queue<Reading> MAXIMA = new ConcurrentLinkedQueue<>();
  static final AtomicBoolean FAIL_ONCE = new AtomicBoolean();

  /** A reading as a record, aggregated by component name. */
  public record Reading(long sensor, long value) {}

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

  @Test
  void rollingSumAndMaxSurviveAFailureAndRestore() throws Exception {
    SUMS.clear();
    MAXIMA.clear();
    FAIL_ONCE.set(true);
    long n = 600_000;
    long keys = 50;
    StreamEnvironment env = StreamEnvironment.create();
    env.setParallelism(2);
    env.enableCheckpointing(Duration.ofMillis(20));
    env.setRestartStrategy(RestartStrategy.fixedDelay(2, Duration.ZERO));
    var numbers = env.fromSequence(1, n).map(new FailOnce());
    numbers
        .map(i -> Tuple2.of(i % keys, i))
        .returns(Types.TUPLE(Types.LONG, Types.LONG))
        .keyBy(t -> t.f0, Types.LONG)
        .sum(1)
        .uid("sum")
        .addSink((SinkFunction<Tuple2<Long, Long>>) (v, ctx) -> SUMS.add(v));
    numbers
        .map(i -> new Reading(i % keys, (i * 7919) % 100_003))
        .returns(Types.RECORD(Reading.class))
        .keyBy(Reading::sensor, Types.LONG)
        .max("value")
        .uid("max")
        .addSink((SinkFunction<Reading>) (v, ctx) -> MAXIMA.add(v));

    JobExecutionResult result = env.execute("keyed-aggregation-recovery");

    assertThat(result.metrics().get("job.restarts")).isEqualTo(1L);
    Map<Long, Long> expectedSums = new HashMap<>();
    Map<Long, Long> expectedMaxima = new HashMap<>();
    for (long i = 1; i <= n; i++) {
      expectedSums.merge(i % keys, i, Long::sum);
      expectedMaxima.merge(i % keys, (i * 7919) % 100_003, Math::max);
    }
    Map<Long, Long> sums = new HashMap<>();
    for (Tuple2<Long, Long> t : List.copyOf(SUMS)) {
      sums.merge(t.f0, t.f1, Math::max);
    }
    Map<Long, Long> maxima = new HashMap<>();
    for (Reading r : List.copyOf(MAXIMA)) {
      maxima.merge(r.sensor(), r.value(), Math::max);
    }
    assertThat(sums).isEqualTo(expectedSums);
    assertThat(maxima).isEqualTo(expectedMaxima);
  }
}

package io.weir.benchmarks.w1;

import io.weir.benchmarks.ChildMain;
import io.weir.benchmarks.Engine;
import io.weir.benchmarks.JobArgs;
import io.weir.benchmarks.Result;
import io.weir.benchmarks.TempDir;
import io.weir.benchmarks.Workloads;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.java.tuple.Tuple2;
import org.apache.flink.api.java.tuple.Tuple3;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.KeyedProcessFunction;
import org.apache.flink.streaming.api.functions.sink.v2.DiscardingSink;
import org.apache.flink.util.Collector;

/**
 * W1 keyed-count on Apache Flink 2.x, local mini cluster, parallelism 2: {@code fromSequence(1,
 * N)}, a key per record, a {@code ValueState<Long>} count per key, a discarding sink.
 *
 * <p>Arguments: {@code <off|cp1s> [records]}. Prints one {@link Result} line.
 */
public final class FlinkKeyedCount {
  private FlinkKeyedCount() {}

  public static void main(String[] args) {
    ChildMain.run(() -> measure(args));
  }

  private static void measure(String[] args) throws Exception {
    JobArgs job = JobArgs.parse(args, "W1", Workloads.OFF_AND_1S, 20_000_000L);
    run("W1", job, Map.of()).print();
  }

  /**
   * Runs W1's job once and returns its result under the id {@code workload}.
   *
   * @param stateBackend settings that choose the state backend (W2: RocksDB); none: the default
   *     heap backend
   */
  public static Result run(String workload, JobArgs job, Map<String, String> stateBackend)
      throws Exception {
    try (TempDir checkpoints =
        TempDir.create("flink-" + workload.toLowerCase(Locale.ROOT) + "-checkpoints-")) {
      Map<String, String> settings = new HashMap<>();
      settings.put("restart-strategy.type", "none");
      settings.putAll(stateBackend);
      if (job.config().equals("cp1s")) {
        settings.put("execution.checkpointing.interval", "1s");
        settings.put("execution.checkpointing.dir", checkpoints.uri());
      }
      StreamExecutionEnvironment env =
          StreamExecutionEnvironment.getExecutionEnvironment(Configuration.fromMap(settings));
      env.setParallelism(2);

      env.fromSequence(1, job.records())
          .map(i -> ((i * 0x9E3779B97F4A7C15L) >>> 47) % 100_000)
          .keyBy(k -> k)
          .process(new CountPerKey())
          .sinkTo(new DiscardingSink<>());

      long start = System.nanoTime();
      env.execute(workload);
      long nanos = System.nanoTime() - start;
      return Result.of(Engine.FLINK, workload, job.config(), job.records(), nanos);
    }
  }

  /** Counts the records of each key in keyed state and emits {@code (key, count)}. */
  public static final class CountPerKey
      extends KeyedProcessFunction<Long, Long, Tuple2<Long, Long>> {
    private static final long serialVersionUID = 1L;

    private transient ValueState<Long> count;

    @Override
    public void open(OpenContext openContext) {
      count = getRuntimeContext().getState(new ValueStateDescriptor<>("count", Types.LONG));
    }

    @Override
    public void processElement(Long key, Context ctx, Collector<Tuple2<Long, Long>> out)
        throws Exception {
      Long current = count.value();
      long next = current == null ? 1L : current + 1L;
      count.update(next);
      out.collect(Tuple2.of(key, next));
    }
  }

  /**
   * W1's count carrying a stamp through, for the latency workloads (W7, KAFKA-LATENCY): {@code
   * (key, stamp)} in, {@code (key, count, stamp)} out.
   */
  public static final class CountCarryingStamp
      extends KeyedProcessFunction<Long, Tuple2<Long, Long>, Tuple3<Long, Long, Long>> {
    private static final long serialVersionUID = 1L;

    private transient ValueState<Long> count;

    @Override
    public void open(OpenContext openContext) {
      count = getRuntimeContext().getState(new ValueStateDescriptor<>("count", Types.LONG));
    }

    @Override
    public void processElement(
        Tuple2<Long, Long> in, Context ctx, Collector<Tuple3<Long, Long, Long>> out)
        throws Exception {
      Long current = count.value();
      long next = current == null ? 1L : current + 1L;
      count.update(next);
      out.collect(Tuple3.of(in.f0, next, in.f1));
    }
  }
}

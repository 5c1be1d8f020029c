package io.weir.benchmarks.w1;

import io.weir.api.StreamEnvironment;
import io.weir.api.config.Configuration;
import io.weir.api.functions.Collector;
import io.weir.api.functions.KeyedProcessFunction;
import io.weir.api.functions.OpenContext;
import io.weir.api.sink.DiscardingSink;
import io.weir.api.state.ValueState;
import io.weir.api.state.ValueStateDescriptor;
import io.weir.api.tuple.Tuple2;
import io.weir.api.tuple.Tuple3;
import io.weir.api.typeutils.Types;
import io.weir.benchmarks.ChildMain;
import io.weir.benchmarks.Engine;
import io.weir.benchmarks.JobArgs;
import io.weir.benchmarks.Result;
import io.weir.benchmarks.TempDir;
import io.weir.benchmarks.Workloads;
import java.util.Locale;
import java.util.Map;

/**
 * W1 keyed-count on Weir, embedded local cluster, parallelism 2: the same job as {@link
 * FlinkKeyedCount}, written against Weir's API.
 *
 * <p>Arguments: {@code <off|cp1s> [records]}. Prints one {@link Result} line.
 */
public final class WeirKeyedCount {
  private WeirKeyedCount() {}

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
        TempDir.create("weir-" + workload.toLowerCase(Locale.ROOT) + "-checkpoints-")) {
      Configuration conf = new Configuration();
      conf.setString("restart-strategy.type", "none");
      stateBackend.forEach(conf::setString);
      if (job.config().equals("cp1s")) {
        conf.setString("execution.checkpointing.interval", "1s");
        conf.setString("execution.checkpointing.dir", checkpoints.uri());
      }
      var env = StreamEnvironment.create(conf);
      env.setParallelism(2);

      env.fromSequence(1, job.records())
          .map(i -> ((i * 0x9E3779B97F4A7C15L) >>> 47) % 100_000)
          .keyBy(k -> k)
          .process(new CountPerKey())
          .returns(Types.TUPLE(Types.LONG, Types.LONG))
          .sinkTo(new DiscardingSink<>());

      long start = System.nanoTime();
      env.execute(workload);
      long nanos = System.nanoTime() - start;
      return Result.of(Engine.WEIR, workload, job.config(), job.records(), nanos);
    }
  }

  /** Counts the records of each key in keyed state and emits {@code (key, count)}. */
  public static final class CountPerKey
      extends KeyedProcessFunction<Long, Long, Tuple2<Long, Long>> {
    private static final long serialVersionUID = 1L;

    private transient ValueState<Long> count;

    @Override
    public void open(OpenContext openContext) throws Exception {
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
    public void open(OpenContext openContext) throws Exception {
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

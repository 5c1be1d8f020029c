package io.weir.benchmarks.tumble;

import io.weir.api.StreamEnvironment;
import io.weir.api.config.Configuration;
import io.weir.api.eventtime.WatermarkStrategy;
import io.weir.api.functions.AggregateFunction;
import io.weir.api.sink.DiscardingSink;
import io.weir.api.source.NumberSequenceSource;
import io.weir.api.typeutils.Types;
import io.weir.api.windowing.assigners.TumblingEventTimeWindows;
import io.weir.benchmarks.ChildMain;
import io.weir.benchmarks.Engine;
import io.weir.benchmarks.JobArgs;
import io.weir.benchmarks.Result;
import io.weir.benchmarks.TempDir;
import java.time.Duration;

/**
 * The tumbling-window workload ({@link TumbleJob}) on Weir, embedded local cluster, parallelism 2.
 *
 * <p>Arguments: {@code <off|heap|rocksdb> [records]}. Prints one {@link Result} line.
 */
public final class WeirTumble {
  private WeirTumble() {}

  public static void main(String[] args) {
    ChildMain.run(() -> measure(args));
  }

  private static void measure(String[] args) throws Exception {
    JobArgs job = JobArgs.parse(args, "TUMBLE", TumbleJob.CONFIGS, TumbleJob.DEFAULT_RECORDS);
    try (TempDir checkpoints = TempDir.create("weir-tumble-checkpoints-")) {
      Configuration conf = new Configuration();
      TumbleJob.settings(
              job.config(), TumbleJob.backend(job.config()).weirSettings(), checkpoints.uri())
          .forEach(conf::setString);
      StreamEnvironment env = StreamEnvironment.create(conf);
      env.setParallelism(2);
      TumbleJob.EventTime time = new TumbleJob.EventTime(job.records());
      env.fromSource(
              new NumberSequenceSource(1, job.records()),
              WatermarkStrategy.<Long>forMonotonousTimestamps()
                  .withTimestampAssigner((i, ts) -> time.of(i)),
              "Sequence Source",
              Types.LONG)
          .map(TumbleJob::key)
          .returns(Types.LONG)
          .keyBy(k -> k, Types.LONG)
          .window(TumblingEventTimeWindows.of(Duration.ofMillis(TumbleJob.WINDOW_MS)))
          .aggregate(new Count())
          .returns(Types.LONG)
          .sinkTo(new DiscardingSink<>());
      long start = System.nanoTime();
      env.execute("tumble");
      long nanos = System.nanoTime() - start;
      Result.of(Engine.WEIR, "TUMBLE", job.config(), job.records(), nanos).print();
    }
  }

  /** Counts the records of a key and window. */
  static final class Count implements AggregateFunction<Long, Long, Long> {
    private static final long serialVersionUID = 1L;

    @Override
    public Long createAccumulator() {
      return 0L;
    }

    @Override
    public Long add(Long value, Long acc) {
      return acc + 1;
    }

    @Override
    public Long getResult(Long acc) {
      return acc;
    }

    @Override
    public Long merge(Long a, Long b) {
      return a + b;
    }
  }
}

package io.weir.benchmarks.tumble;

import io.weir.benchmarks.ChildMain;
import io.weir.benchmarks.Engine;
import io.weir.benchmarks.JobArgs;
import io.weir.benchmarks.Result;
import io.weir.benchmarks.TempDir;
import java.time.Duration;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.functions.AggregateFunction;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.connector.source.lib.NumberSequenceSource;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.sink.v2.DiscardingSink;
import org.apache.flink.streaming.api.windowing.assigners.TumblingEventTimeWindows;

/**
 * The tumbling-window workload ({@link TumbleJob}) on Apache Flink 2.x, local mini cluster,
 * parallelism 2.
 *
 * <p>Arguments: {@code <off|heap|rocksdb> [records]}. Prints one {@link Result} line.
 */
public final class FlinkTumble {
  private FlinkTumble() {}

  public static void main(String[] args) {
    ChildMain.run(() -> measure(args));
  }

  private static void measure(String[] args) throws Exception {
    JobArgs job = JobArgs.parse(args, "TUMBLE", TumbleJob.CONFIGS, TumbleJob.DEFAULT_RECORDS);
    try (TempDir checkpoints = TempDir.create("flink-tumble-checkpoints-")) {
      StreamExecutionEnvironment env =
          StreamExecutionEnvironment.getExecutionEnvironment(
              Configuration.fromMap(
                  TumbleJob.settings(
                      job.config(),
                      TumbleJob.backend(job.config()).flinkSettings(),
                      checkpoints.uri())));
      env.setParallelism(2);
      TumbleJob.EventTime time = new TumbleJob.EventTime(job.records());
      env.fromSource(
              new NumberSequenceSource(1, job.records()),
              WatermarkStrategy.<Long>forMonotonousTimestamps()
                  .withTimestampAssigner((i, ts) -> time.of(i)),
              "Sequence Source")
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
      Result.of(Engine.FLINK, "TUMBLE", job.config(), job.records(), nanos).print();
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

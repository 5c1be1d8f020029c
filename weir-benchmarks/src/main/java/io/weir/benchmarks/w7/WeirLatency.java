package io.weir.benchmarks.w7;

import io.weir.api.CheckpointStatistics;
import io.weir.api.DataStream;
import io.weir.api.JobClient;
import io.weir.api.StreamEnvironment;
import io.weir.api.config.Configuration;
import io.weir.api.functions.RichMapFunction;
import io.weir.api.sink.Sink;
import io.weir.api.sink.SinkWriter;
import io.weir.api.sink.WriterInitContext;
import io.weir.api.source.datagen.DataGeneratorSource;
import io.weir.api.source.datagen.RateLimiterStrategy;
import io.weir.api.tuple.Tuple2;
import io.weir.api.tuple.Tuple3;
import io.weir.api.typeutils.Types;
import io.weir.benchmarks.ChildMain;
import io.weir.benchmarks.Engine;
import io.weir.benchmarks.JobArgs;
import io.weir.benchmarks.Result;
import io.weir.benchmarks.TempDir;
import io.weir.benchmarks.w1.WeirKeyedCount;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * W7 latency on Weir, embedded local cluster: the job of {@link W7Job} written against Weir's API;
 * checkpoint figures from {@link JobClient#getCheckpointStatistics()}.
 *
 * <p>Arguments: {@code <aligned|unaligned> [records]} (records: measured records, the measured span
 * at 100 000 rec/s). Prints one {@link Result} line.
 */
public final class WeirLatency {
  private WeirLatency() {}

  public static void main(String[] args) {
    ChildMain.run(() -> measure(args));
  }

  private static void measure(String[] args) throws Exception {
    JobArgs job = JobArgs.parse(args, W7Job.ID, W7Job.CONFIGS, W7Job.DEFAULT_RECORDS);
    try (TempDir checkpoints = TempDir.create("weir-w7-checkpoints-")) {
      Configuration conf = new Configuration();
      W7Job.settings(job.config(), checkpoints.uri()).forEach(conf::setString);
      StreamEnvironment env = StreamEnvironment.create(conf);
      env.setParallelism(W7Job.PARALLELISM);
      W7Job.bufferTimeout().ifPresent(env::setBufferTimeout);

      DataStream<Tuple2<Long, Long>> stamped;
      if (W7Job.paced(job.config())) {
        stamped =
            env.fromSequence(1, Long.MAX_VALUE)
                .map(new Pace())
                .returns(Types.TUPLE(Types.LONG, Types.LONG));
      } else {
        W7Job.GeneratorStamp stamp = new W7Job.GeneratorStamp();
        stamped =
            env.fromSource(
                new DataGeneratorSource<>(
                    i -> Tuple2.of(W7Job.key(i), stamp.next()),
                    Long.MAX_VALUE,
                    RateLimiterStrategy.perSecond(W7Job.RATE),
                    Types.TUPLE(Types.LONG, Types.LONG)),
                "Generator");
      }
      stamped
          .keyBy(record -> record.f0, Types.LONG)
          .process(new WeirKeyedCount.CountCarryingStamp())
          .returns(Types.TUPLE(Types.LONG, Types.LONG, Types.LONG))
          .sinkTo(new LatencySink());

      LatencyMeasurement measurement =
          LatencyMeasurement.start(W7Job.warmUp(), W7Job.measured(job.records()));
      JobClient client = env.executeAsync(W7Job.ID);
      measurement.awaitMeasured(
          client.getJobExecutionResult(), W7Job.START_TIMEOUT, W7Job.DRAIN_TIMEOUT);
      List<CheckpointStatistics> statistics = client.getCheckpointStatistics();
      client.cancel().get(1, TimeUnit.MINUTES);
      LatencyMeasurement.Figures figures = measurement.figures();

      List<Long> endToEnd =
          statistics.stream()
              .filter(cp -> cp.status() == CheckpointStatistics.Status.COMPLETED)
              .map(CheckpointStatistics::endToEndDurationMillis)
              .toList();
      W7Job.result(Engine.WEIR, job.config(), figures, endToEnd).print();
    }
  }

  /**
   * Paces its subtask ({@link PacingSchedule}, from its first record) and emits {@code (W1's key,
   * creation stamp)}. Chained to the sequence source, so the stamp is taken as the source emits.
   */
  static final class Pace extends RichMapFunction<Long, Tuple2<Long, Long>> {
    private static final long serialVersionUID = 1L;
    private transient PacingSchedule schedule;
    private transient LatencyMeasurement measurement;

    @Override
    public Tuple2<Long, Long> map(Long i) {
      if (schedule == null) {
        schedule = PacingSchedule.startingNow(W7Job.RATE_PER_SUBTASK);
        measurement = LatencyMeasurement.current();
      }
      long lag = schedule.awaitNext();
      return Tuple2.of(W7Job.key(i), measurement.stamp(lag));
    }
  }

  /** Takes every measured record's latency into its subtask's histogram. */
  static final class LatencySink implements Sink<Tuple3<Long, Long, Long>> {
    private static final long serialVersionUID = 1L;

    @Override
    public SinkWriter<Tuple3<Long, Long, Long>> createWriter(WriterInitContext context) {
      LatencyMeasurement.SinkRecorder recorder = LatencyMeasurement.current().newSinkRecorder();
      return (element, ctx) -> recorder.record(element.f2);
    }
  }
}

package io.weir.benchmarks.w7;

import com.fasterxml.jackson.databind.JsonNode;
import io.weir.benchmarks.ChildMain;
import io.weir.benchmarks.Engine;
import io.weir.benchmarks.JobArgs;
import io.weir.benchmarks.Result;
import io.weir.benchmarks.TempDir;
import io.weir.benchmarks.flink.FlinkRest;
import io.weir.benchmarks.w1.FlinkKeyedCount;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.functions.RichMapFunction;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.connector.sink2.Sink;
import org.apache.flink.api.connector.sink2.SinkWriter;
import org.apache.flink.api.connector.sink2.WriterInitContext;
import org.apache.flink.api.connector.source.util.ratelimit.RateLimiterStrategy;
import org.apache.flink.api.java.tuple.Tuple2;
import org.apache.flink.api.java.tuple.Tuple3;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.connector.datagen.source.DataGeneratorSource;
import org.apache.flink.connector.datagen.source.GeneratorFunction;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;

/**
 * W7 latency on Apache Flink 2.x, local mini cluster: the same job as {@link WeirLatency}, the same
 * pacing and histograms ({@link PacingSchedule}, {@link LatencyMeasurement}). Checkpoint figures
 * come from the mini cluster's REST API ({@code GET /jobs/<id>/checkpoints}, through {@link
 * FlinkRest}), read before the job is cancelled.
 *
 * <p>Arguments: {@code <aligned|unaligned> [records]} (records: measured records, the measured span
 * at 100 000 rec/s). Prints one {@link Result} line.
 */
public final class FlinkLatency {
  private FlinkLatency() {}

  public static void main(String[] args) {
    ChildMain.run(() -> measure(args));
  }

  private static void measure(String[] args) throws Exception {
    JobArgs job = JobArgs.parse(args, W7Job.ID, W7Job.CONFIGS, W7Job.DEFAULT_RECORDS);
    try (TempDir checkpoints = TempDir.create("flink-w7-checkpoints-")) {
      Map<String, String> settings = new HashMap<>(W7Job.settings(job.config(), checkpoints.uri()));
      FlinkRest rest = FlinkRest.configure(settings);
      StreamExecutionEnvironment env =
          StreamExecutionEnvironment.getExecutionEnvironment(Configuration.fromMap(settings));
      env.setParallelism(W7Job.PARALLELISM);
      W7Job.bufferTimeout().ifPresent(timeout -> env.setBufferTimeout(timeout.toMillis()));

      DataStream<Tuple2<Long, Long>> stamped;
      if (W7Job.paced(job.config())) {
        stamped = env.fromSequence(1, Long.MAX_VALUE).map(new Pace());
      } else {
        W7Job.GeneratorStamp stamp = new W7Job.GeneratorStamp();
        stamped =
            env.fromSource(
                new DataGeneratorSource<>(
                    (GeneratorFunction<Long, Tuple2<Long, Long>>)
                        i -> Tuple2.of(W7Job.key(i), stamp.next()),
                    Long.MAX_VALUE,
                    RateLimiterStrategy.perSecond(W7Job.RATE),
                    Types.TUPLE(Types.LONG, Types.LONG)),
                WatermarkStrategy.noWatermarks(),
                "Generator");
      }
      stamped
          .keyBy(record -> record.f0, Types.LONG)
          .process(new FlinkKeyedCount.CountCarryingStamp())
          .sinkTo(new LatencySink());

      LatencyMeasurement measurement =
          LatencyMeasurement.start(W7Job.warmUp(), W7Job.measured(job.records()));
      JobClient client = env.executeAsync(W7Job.ID);
      measurement.awaitMeasured(
          client.getJobExecutionResult(), W7Job.START_TIMEOUT, W7Job.DRAIN_TIMEOUT);
      JsonNode overview = rest.get(rest.jobUrl(client.getJobID()) + "/checkpoints");
      client.cancel().get(1, TimeUnit.MINUTES);
      awaitEnd(client);
      LatencyMeasurement.Figures figures = measurement.figures();

      List<Long> endToEnd = new ArrayList<>();
      for (JsonNode checkpoint : overview.path("history")) {
        if ("COMPLETED".equals(checkpoint.path("status").asText())) {
          endToEnd.add(checkpoint.path("end_to_end_duration").asLong());
        }
      }
      System.out.println("W7 flink: checkpoint counts " + overview.path("counts"));
      W7Job.result(Engine.FLINK, job.config(), figures, endToEnd).print();
    }
  }

  /** Flink's cancel() completes once the request is accepted; the tasks stop after it. */
  private static void awaitEnd(JobClient client) {
    try {
      client.getJobExecutionResult().get(1, TimeUnit.MINUTES);
    } catch (Exception e) {
      // cancelled: the result future fails
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
      return new SinkWriter<>() {
        @Override
        public void write(Tuple3<Long, Long, Long> element, Context ctx) {
          recorder.record(element.f2);
        }

        @Override
        public void flush(boolean endOfInput) {}

        @Override
        public void close() {}
      };
    }
  }
}

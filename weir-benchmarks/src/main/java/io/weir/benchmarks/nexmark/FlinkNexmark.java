package io.weir.benchmarks.nexmark;

import io.weir.benchmarks.ChildMain;
import io.weir.benchmarks.Engine;
import io.weir.benchmarks.JobArgs;
import io.weir.benchmarks.Result;
import io.weir.benchmarks.TempDir;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.sink.v2.DiscardingSink;

/**
 * Nexmark on Apache Flink 2.x, local mini cluster, parallelism 2: the generator's events through
 * one query into a discarding sink.
 *
 * <p>Arguments: {@code <query>[-rocksdb][-cp10s] [events]}. Prints one {@link Result} line; its
 * records are the events generated.
 */
public final class FlinkNexmark {
  private FlinkNexmark() {}

  public static void main(String[] args) {
    ChildMain.run(() -> measure(args));
  }

  private static void measure(String[] args) throws Exception {
    JobArgs job = JobArgs.parse(args, "NEXMARK", NexmarkRun.CONFIGS, NexmarkRun.DEFAULT_EVENTS);
    NexmarkRun run = NexmarkRun.parse(job.config());
    try (TempDir checkpoints = TempDir.create("flink-nexmark-checkpoints-")) {
      StreamExecutionEnvironment env =
          StreamExecutionEnvironment.getExecutionEnvironment(
              Configuration.fromMap(
                  run.settings(run.backend().flinkSettings(), checkpoints.uri())));
      env.setParallelism(2);
      DataStream<?> results =
          FlinkQueries.query(
              run.query(),
              FlinkQueries.events(
                  env, new NexmarkGenerator(NexmarkGenerator.Config.of(job.records()))));
      discard(results);
      long start = System.nanoTime();
      env.execute("nexmark-" + run.query());
      long nanos = System.nanoTime() - start;
      Result.of(Engine.FLINK, "NEXMARK", job.config(), job.records(), nanos).print();
    }
  }

  @SuppressWarnings("unchecked")
  private static <T> void discard(DataStream<T> results) {
    results.sinkTo(new DiscardingSink<>());
  }
}

package io.weir.benchmarks.nexmark;

import io.weir.api.DataStream;
import io.weir.api.StreamEnvironment;
import io.weir.api.config.Configuration;
import io.weir.api.sink.DiscardingSink;
import io.weir.benchmarks.ChildMain;
import io.weir.benchmarks.Engine;
import io.weir.benchmarks.JobArgs;
import io.weir.benchmarks.Result;
import io.weir.benchmarks.TempDir;

/**
 * Nexmark on Weir, embedded local cluster, parallelism 2: the generator's events through one query
 * into a discarding sink.
 *
 * <p>Arguments: {@code <query>[-rocksdb][-cp10s] [events]}. Prints one {@link Result} line; its
 * records are the events generated.
 */
public final class WeirNexmark {
  private WeirNexmark() {}

  public static void main(String[] args) {
    ChildMain.run(() -> measure(args));
  }

  private static void measure(String[] args) throws Exception {
    JobArgs job = JobArgs.parse(args, "NEXMARK", NexmarkRun.CONFIGS, NexmarkRun.DEFAULT_EVENTS);
    NexmarkRun run = NexmarkRun.parse(job.config());
    try (TempDir checkpoints = TempDir.create("weir-nexmark-checkpoints-")) {
      Configuration conf = new Configuration();
      run.settings(run.backend().weirSettings(), checkpoints.uri()).forEach(conf::setString);
      StreamEnvironment env = StreamEnvironment.create(conf);
      env.setParallelism(2);
      DataStream<?> results =
          WeirQueries.query(
              run.query(),
              WeirQueries.events(
                  env, new NexmarkGenerator(NexmarkGenerator.Config.of(job.records()))));
      discard(results);
      long start = System.nanoTime();
      env.execute("nexmark-" + run.query());
      long nanos = System.nanoTime() - start;
      Result.of(Engine.WEIR, "NEXMARK", job.config(), job.records(), nanos).print();
    }
  }

  @SuppressWarnings("unchecked")
  private static <T> void discard(DataStream<T> results) {
    results.sinkTo(new DiscardingSink<>());
  }
}

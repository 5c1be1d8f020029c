package io.weir.benchmarks.w8;

import io.weir.benchmarks.ChildMain;
import io.weir.benchmarks.Engine;
import io.weir.benchmarks.JobArgs;
import io.weir.benchmarks.Result;
import io.weir.benchmarks.TempDir;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.Map;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;

/**
 * W8 on Flink (see {@link W8Run}): {@code embedded} runs {@link FlinkW8Job} on a local mini cluster
 * in this JVM; {@code cluster} and {@code recovery} submit it to a {@link FlinkBenchCluster}.
 *
 * <p>Arguments: {@code <embedded|cluster|recovery> [records]}. Prints one {@link Result} line.
 */
public final class FlinkW8 {
  private FlinkW8() {}

  public static void main(String[] args) {
    ChildMain.run(() -> measure(JobArgs.parse(args, "W8", W8Run.CONFIGS, W8Run.DEFAULT_RECORDS)));
  }

  private static void measure(JobArgs job) throws Exception {
    try (TempDir scratch = TempDir.create("flink-w8-")) {
      Map<String, String> settings =
          W8Run.jobSettings(job.config(), scratch.path().resolve("checkpoints"));
      if (W8Run.embedded(job.config())) {
        if (W8Run.warm(job.config())) {
          runEmbedded(job, settings, scratch.path().resolve("warm-up-first-records"));
        }
        Path markers = scratch.path().resolve("first-records");
        Instant submitted = Instant.now();
        long nanos = runEmbedded(job, settings, markers);
        W8Run.withStart(
                Result.of(Engine.FLINK, "W8", job.config(), job.records(), nanos),
                submitted,
                markers)
            .print();
        return;
      }
      Result result;
      try (FlinkBenchCluster cluster =
          new FlinkBenchCluster(
              scratch.path(), settings, W8Run.slotsPerTaskManager(job.config()))) {
        result =
            W8Run.onCluster(Engine.FLINK, job.config(), job.records(), cluster, scratch.path());
      }
      result.print();
    }
  }

  /**
   * Runs the job on a mini cluster in this JVM to its end, stamping into {@code markers}; returns
   * the nanoseconds of {@code execute()}.
   */
  private static long runEmbedded(JobArgs job, Map<String, String> settings, Path markers)
      throws Exception {
    StreamExecutionEnvironment env =
        StreamExecutionEnvironment.getExecutionEnvironment(Configuration.fromMap(settings));
    FlinkW8Job.build(env, job.records(), Files.createDirectories(markers).toString(), "");
    long start = System.nanoTime();
    env.execute("W8");
    return System.nanoTime() - start;
  }
}

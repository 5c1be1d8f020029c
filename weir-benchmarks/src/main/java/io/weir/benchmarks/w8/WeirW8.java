package io.weir.benchmarks.w8;

import io.weir.benchmarks.ChildMain;
import io.weir.benchmarks.Engine;
import io.weir.benchmarks.JobArgs;
import io.weir.benchmarks.Result;
import io.weir.benchmarks.TempDir;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * W8 on Weir (see {@link W8Run}): {@code embedded} runs {@link WeirW8Job} in this JVM; {@code
 * cluster}, {@code single-tm} and {@code recovery} submit it to a {@link WeirBenchCluster}.
 *
 * <p>Arguments: {@code <embedded|cluster|single-tm|recovery> [records]}. Prints one {@link Result}
 * line.
 */
public final class WeirW8 {
  private WeirW8() {}

  public static void main(String[] args) {
    ChildMain.run(() -> measure(JobArgs.parse(args, "W8", W8Run.CONFIGS, W8Run.DEFAULT_RECORDS)));
  }

  private static void measure(JobArgs job) throws Exception {
    try (TempDir scratch = TempDir.create("weir-w8-")) {
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
                Result.of(Engine.WEIR, "W8", job.config(), job.records(), nanos),
                submitted,
                markers)
            .print();
        return;
      }
      Result result;
      try (WeirBenchCluster cluster =
          new WeirBenchCluster(scratch.path(), settings, W8Run.slotsPerTaskManager(job.config()))) {
        result = W8Run.onCluster(Engine.WEIR, job.config(), job.records(), cluster, scratch.path());
      }
      result.print();
    }
  }

  /**
   * Runs the job in this JVM to its end, stamping into {@code markers}; returns its nanoseconds.
   */
  private static long runEmbedded(JobArgs job, Map<String, String> settings, Path markers)
      throws Exception {
    Files.createDirectories(markers);
    List<String> args =
        new ArrayList<>(List.of(Long.toString(job.records()), markers.toString(), "-"));
    settings.forEach((k, v) -> args.add(k + "=" + v));
    long start = System.nanoTime();
    WeirW8Job.main(args.toArray(String[]::new));
    return System.nanoTime() - start;
  }
}

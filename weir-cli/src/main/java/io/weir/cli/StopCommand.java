package io.weir.cli;

import io.weir.cluster.ClusterClient;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code weir stop JOB [--drain] [DIR]}: Flink's stop-with-savepoint. */
@Command(
    name = "stop",
    description =
        "Stop a job with a savepoint: the sources stop after the savepoint's barrier, every task"
            + " ends once the savepoint completed (two-phase-commit sinks commit) and the job ends"
            + " FINISHED. If the savepoint fails the job keeps running. Prints the savepoint's"
            + " path.")
final class StopCommand implements Callable<Integer> {

  @Mixin ClientOptions client;

  @Option(
      names = {"--drain", "-d"},
      description =
          "End the input first (final watermark: event-time timers and windows fire), for a job"
              + " that will not be resumed.")
  boolean drain;

  @Parameters(index = "0", paramLabel = "JOB", description = "The job's id.")
  String jobId;

  @Parameters(
      index = "1",
      arity = "0..1",
      paramLabel = "DIR",
      description =
          "Where the savepoint's directory is created; default the job's"
              + " execution.checkpointing.savepoint-dir.")
  String directory;

  @Override
  public Integer call() throws Exception {
    ClusterClient c = client.client();
    System.err.println(
        "Suspending job " + jobId + " with a savepoint" + (drain ? " (draining)." : "."));
    String trigger = c.stopWithSavepoint(jobId, directory, drain);
    String path = c.awaitSavepoint(jobId, trigger, SavepointWait.onStandardError(jobId));
    System.out.println("Savepoint completed. Path: " + path);
    return 0;
  }
}

package io.weir.cli;

import io.weir.cluster.client.ClusterClient;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code weir stop JOB [--drain] [DIR]}: Flink's stop-with-savepoint. */
@Command(
    name = "stop",
    mixinStandardHelpOptions = true,
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

  @Mixin SavepointTarget target;

  @Option(
      names = {"-p", "--savepointPath"},
      paramLabel = "DIR",
      description = "Flink's way of giving DIR: where the savepoint's directory is created.")
  String savepointPath;

  @picocli.CommandLine.Spec picocli.CommandLine.Model.CommandSpec spec;

  @Override
  public Integer call() throws Exception {
    if (savepointPath != null) {
      if (target.directory != null && !target.directory.equals(savepointPath)) {
        throw new picocli.CommandLine.ParameterException(
            spec.commandLine(),
            "Two savepoint directories: DIR " + target.directory + " and -p " + savepointPath);
      }
      target.directory = savepointPath;
    }
    ClusterClient c = client.client();
    System.err.println(
        "Suspending job " + target.jobId + " with a savepoint" + (drain ? " (draining)." : "."));
    String trigger = c.stopWithSavepoint(target.jobId, target.directory, drain);
    String path =
        c.awaitSavepoint(target.jobId, trigger, SavepointWait.onStandardError(target.jobId));
    System.out.println("Savepoint completed. Path: " + path);
    return 0;
  }
}

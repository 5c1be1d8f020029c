package io.weir.cli;

import io.weir.cluster.client.ClusterClient;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code weir checkpoint JOB}: a checkpoint now (Flink 1.19's {@code flink checkpoint}). */
@Command(
    name = "checkpoint",
    mixinStandardHelpOptions = true,
    description =
        "Trigger a checkpoint of a running job now, of the kind it is configured with (full with"
            + " --full), and wait for it to complete. Prints the checkpoint's id.")
final class CheckpointCommand implements Callable<Integer> {

  @Mixin ClientOptions client;

  @Parameters(index = "0", paramLabel = "JOB", description = "The job's id.")
  String jobId;

  @Option(
      names = {"-full", "--full"},
      description =
          "A full checkpoint: one that refers to no file of an earlier checkpoint. A job with"
              + " incremental checkpoints (execution.checkpointing.incremental) uploads its whole"
              + " state; the incremental checkpoints after it build on it.")
  boolean full;

  @Override
  public Integer call() throws Exception {
    ClusterClient c = client.client();
    System.err.println("Triggering " + (full ? "full " : "") + "checkpoint for job " + jobId + ".");
    String trigger;
    try {
      trigger = c.triggerCheckpoint(jobId, full ? "FULL" : null);
    } catch (ClusterClient.RefusedException e) {
      throw new CommandFailure(String.join("; ", e.reasons()), e);
    }
    long id = c.awaitCheckpoint(jobId, trigger);
    System.out.println("Checkpoint(" + id + ") for job " + jobId + " completed.");
    return 0;
  }
}

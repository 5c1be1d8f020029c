package io.weir.cli;

import io.weir.cluster.ClusterClient;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Parameters;

/** {@code weir savepoint JOB [DIR]}: a savepoint while the job goes on. */
@Command(
    name = "savepoint",
    description =
        "Take a savepoint of a running job (it keeps running). Prints the savepoint's path, which"
            + " 'weir run -s PATH' resumes from.")
final class SavepointCommand implements Callable<Integer> {

  @Mixin ClientOptions client;

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
    System.err.println("Triggering savepoint for job " + jobId + ".");
    String trigger = c.triggerSavepoint(jobId, directory);
    String path = c.awaitSavepoint(jobId, trigger, SavepointWait.onStandardError(jobId));
    System.out.println("Savepoint completed. Path: " + path);
    return 0;
  }
}

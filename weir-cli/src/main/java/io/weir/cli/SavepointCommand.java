package io.weir.cli;

import io.weir.cluster.client.ClusterClient;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;

/** {@code weir savepoint JOB [DIR]}: a savepoint while the job goes on. */
@Command(
    name = "savepoint",
    mixinStandardHelpOptions = true,
    description =
        "Take a savepoint of a running job (it keeps running). Prints the savepoint's path, which"
            + " 'weir run -s PATH' resumes from.")
final class SavepointCommand implements Callable<Integer> {

  @Mixin ClientOptions client;

  @Mixin SavepointTarget target;

  @Override
  public Integer call() throws Exception {
    ClusterClient c = client.client();
    System.err.println("Triggering savepoint for job " + target.jobId + ".");
    String trigger = c.triggerSavepoint(target.jobId, target.directory);
    String path =
        c.awaitSavepoint(target.jobId, trigger, SavepointWait.onStandardError(target.jobId));
    System.out.println("Savepoint completed. Path: " + path);
    return 0;
  }
}

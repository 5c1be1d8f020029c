package io.weir.cli;

import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Parameters;

/** {@code weir cancel JOB}. */
@Command(name = "cancel", mixinStandardHelpOptions = true, description = "Cancel a job.")
final class CancelCommand implements Callable<Integer> {

  @Mixin ClientOptions client;

  @Parameters(index = "0", paramLabel = "JOB", description = "The job's id.")
  String jobId;

  @Override
  public Integer call() throws Exception {
    client.client().cancel(jobId);
    System.out.println("Cancelling job " + jobId);
    return 0;
  }
}

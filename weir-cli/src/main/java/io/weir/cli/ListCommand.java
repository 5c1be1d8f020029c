package io.weir.cli;

import io.weir.cluster.rest.messages.JobSummary;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;

/** {@code weir list}: the JobManager's jobs. */
@Command(
    name = "list",
    mixinStandardHelpOptions = true,
    description = "List the jobs of the JobManager.")
final class ListCommand implements Callable<Integer> {

  @Mixin ClientOptions client;

  @Override
  public Integer call() throws Exception {
    List<JobSummary> jobs = client.client().jobs();
    if (jobs.isEmpty()) {
      System.out.println("No jobs.");
    }
    for (JobSummary job : jobs) {
      System.out.println(job.jid() + " : " + job.name() + " (" + job.state() + ")");
    }
    return 0;
  }
}

package io.weir.cli;

import com.fasterxml.jackson.databind.JsonNode;
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
    JsonNode jobs = client.client().jobs();
    if (jobs.isEmpty()) {
      System.out.println("No jobs.");
    }
    for (JsonNode job : jobs) {
      System.out.println(
          job.path("jid").asText()
              + " : "
              + job.path("name").asText()
              + " ("
              + job.path("state").asText()
              + ")");
    }
    return 0;
  }
}

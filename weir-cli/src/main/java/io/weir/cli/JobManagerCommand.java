package io.weir.cli;

import io.weir.cluster.ClusterMain;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code weir jobmanager}: runs a JobManager process in the foreground. */
@Command(
    name = "jobmanager",
    mixinStandardHelpOptions = true,
    description = {
      "Run a JobManager: its control port (jobmanager.rpc.port, 6123) for TaskManagers and its REST"
          + " port (rest.port, 8081) for clients, both on 127.0.0.1 unless configured."
    })
final class JobManagerCommand implements Callable<Integer> {

  @Option(names = "--config", description = "A config file of 'key: value' lines.")
  Path config;

  @Option(
      names = "-D",
      paramLabel = "KEY=VALUE",
      description = "A setting, e.g. -D rest.port=8082.")
  List<String> settings;

  @Override
  public Integer call() throws Exception {
    ClusterMain.runJobManager(config, Settings.parse(settings));
    return 0;
  }
}

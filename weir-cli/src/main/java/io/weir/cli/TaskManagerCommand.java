package io.weir.cli;

import io.weir.cluster.ClusterMain;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code weir taskmanager}: runs a TaskManager process in the foreground. */
@Command(
    name = "taskmanager",
    mixinStandardHelpOptions = true,
    description = {
      "Run a TaskManager that registers its slots with a JobManager and runs the tasks it is sent."
    })
final class TaskManagerCommand implements Callable<Integer> {

  @Option(
      names = "--jobmanager",
      paramLabel = "HOST:PORT",
      description =
          "The JobManager's control port (jobmanager.rpc.port); default from the config, else"
              + " 127.0.0.1:6123.")
  String jobManager;

  @Option(names = "--slots", description = "Task slots (taskmanager.numberOfTaskSlots, 1).")
  Integer slots;

  @Option(names = "--config", description = "A config file of 'key: value' lines.")
  Path config;

  @Option(names = "-D", paramLabel = "KEY=VALUE", description = "A setting.")
  List<String> settings;

  @Override
  public Integer call() throws Exception {
    ClusterMain.runTaskManager(jobManager, slots, config, Settings.parse(settings));
    return 0;
  }
}

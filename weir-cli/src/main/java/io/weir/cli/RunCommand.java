package io.weir.cli;

import io.weir.cluster.ClusterClient;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code weir run}: uploads a job jar to a JobManager and runs it. */
@Command(name = "run", description = "Upload a job jar to the JobManager and run its main class.")
final class RunCommand implements Callable<Integer> {

  @Mixin ClientOptions client;

  @Option(
      names = {"-p", "--parallelism"},
      description = "The job's default parallelism.")
  Integer parallelism;

  @Option(
      names = {"-c", "--class"},
      description = "The entry class; default the jar's Main-Class.")
  String entryClass;

  @Option(names = "-D", paramLabel = "KEY=VALUE", description = "A job setting.")
  List<String> settings;

  @Parameters(index = "0", paramLabel = "JAR", description = "The job's jar.")
  Path jar;

  @Parameters(index = "1..*", paramLabel = "ARGS", description = "Arguments of the main class.")
  List<String> args = new ArrayList<>();

  @Override
  public Integer call() throws Exception {
    ClusterClient c = client.client();
    String jarId = c.upload(jar);
    String jobId = c.run(jarId, entryClass, args, parallelism, Settings.parse(settings));
    System.out.println("Job has been submitted with JobID " + jobId);
    return 0;
  }
}

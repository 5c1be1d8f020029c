package io.weir.cli;

import io.weir.api.RecoveryClaimMode;
import io.weir.api.config.Configuration;
import io.weir.api.config.KnownKeys;
import io.weir.cluster.ClusterClient;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
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

  @Option(
      names = "--config",
      paramLabel = "FILE",
      description =
          "Job settings from a file of 'key: value' lines (Flink's flat config.yaml); -D wins.")
  Path config;

  @Option(
      names = {"-s", "--fromSavepoint"},
      paramLabel = "PATH",
      description =
          "Start from this savepoint or retained checkpoint" + " (execution.state-recovery.path).")
  String fromSavepoint;

  @Option(
      names = {"-n", "--allowNonRestoredState"},
      description =
          "Drop state of operators the job no longer has"
              + " (execution.state-recovery.ignore-unclaimed-state).")
  boolean allowNonRestoredState;

  @Option(
      names = "--claim-mode",
      paramLabel = "MODE",
      description =
          "NO_CLAIM (default: the restored checkpoint is never deleted) or CLAIM (the job owns"
              + " and deletes it once subsumed); execution.state-recovery.claim-mode.")
  RecoveryClaimMode claimMode;

  @Parameters(index = "0", paramLabel = "JAR", description = "The job's jar.")
  Path jar;

  @Parameters(index = "1..*", paramLabel = "ARGS", description = "Arguments of the main class.")
  List<String> args = new ArrayList<>();

  @Override
  public Integer call() throws Exception {
    ClusterClient c = client.client();
    Map<String, String> jobSettings = new LinkedHashMap<>(Settings.fromFile(config));
    jobSettings.putAll(Settings.parse(settings));
    if (fromSavepoint != null) {
      jobSettings.put("execution.state-recovery.path", fromSavepoint);
    }
    if (allowNonRestoredState) {
      jobSettings.put("execution.state-recovery.ignore-unclaimed-state", "true");
    }
    if (claimMode != null) {
      jobSettings.put("execution.state-recovery.claim-mode", claimMode.name());
    }
    // Before anything is uploaded: a misspelled key is named with the nearest known one.
    Configuration conf = new Configuration();
    jobSettings.forEach(conf::setString);
    KnownKeys.check(conf);
    String jarId = c.upload(jar);
    String jobId = c.run(jarId, entryClass, args, parallelism, jobSettings);
    System.out.println("Job has been submitted with JobID " + jobId);
    return 0;
  }
}

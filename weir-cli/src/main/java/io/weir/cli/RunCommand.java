package io.weir.cli;

import io.weir.api.RecoveryClaimMode;
import io.weir.api.config.CheckpointingOptions;
import io.weir.api.config.Configuration;
import io.weir.api.config.KnownKeys;
import io.weir.cluster.LocalSessionCluster;
import io.weir.cluster.client.ClusterClient;
import io.weir.cluster.rest.messages.JobDetails;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code weir run}: runs a job jar on a local session cluster in this process (until the job ends),
 * or uploads it to the JobManager given with {@code --jobmanager} and returns.
 */
@Command(
    name = "run",
    mixinStandardHelpOptions = true,
    description =
        "Run a job jar's main class: on a local session cluster in this process until the job ends"
            + " (its REST API on 127.0.0.1 meanwhile, for list, cancel, savepoint and stop), or"
            + " on the cluster of --jobmanager HOST:PORT (submitted, then this command returns).")
final class RunCommand implements Callable<Integer> {

  /**
   * How long the local session cluster keeps serving after its job ended for a savepoint's outcome
   * that no client has asked for yet (a {@code weir stop} polls for it within a fraction of a
   * second).
   */
  private static final Duration SAVEPOINT_OUTCOME_PATIENCE = Duration.ofSeconds(30);

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

  @Option(
      names = "--rest-port",
      paramLabel = "PORT",
      description =
          "Without --jobmanager: the local session cluster's REST port; default any free one.")
  Integer restPort;

  @Override
  public Integer call() throws Exception {
    if (client.jobManagerGiven()) {
      if (restPort != null) {
        throw new picocli.CommandLine.ParameterException(
            new picocli.CommandLine(this),
            "--rest-port is for the local session cluster: leave it out with --jobmanager");
      }
      submit(client.client());
      return 0;
    }
    Map<String, String> clusterSettings = new LinkedHashMap<>();
    if (restPort != null) {
      clusterSettings.put(io.weir.cluster.ClusterOptions.REST_PORT.key(), String.valueOf(restPort));
    }
    // The metrics settings (-D metrics.reporter.prom.port=9250) are the local session cluster's:
    // it serves the job's metrics as a JobManager and a TaskManager would.
    Map<String, String> given = new LinkedHashMap<>(Settings.fromFile(config));
    given.putAll(Settings.parse(settings));
    given.forEach(
        (key, value) -> {
          if (key.startsWith("metrics.")) {
            clusterSettings.put(key, value);
          }
        });
    try (LocalSessionCluster cluster = new LocalSessionCluster(clusterSettings)) {
      String address = "127.0.0.1:" + cluster.restPort();
      ClusterClient c = client.client(address);
      String jobId = submit(c);
      System.out.println(
          "Running on a local session cluster, REST API at "
              + address
              + " (weir list|cancel|savepoint|stop -m "
              + address
              + ")"
              + (cluster.metricsPort() > 0
                  ? ", Prometheus metrics at http://127.0.0.1:" + cluster.metricsPort() + "/metrics"
                  : ""));
      int exitCode = awaitEnd(c, jobId);
      // A stop ends the job before its client has asked where the savepoint went: serve until
      // every savepoint's outcome has been sent, as a JobManager that outlives the job would.
      if (!cluster.awaitSavepointOutcomesSent(jobId, SAVEPOINT_OUTCOME_PATIENCE)) {
        System.err.println(
            "weir run: no client asked for the outcome of a savepoint of job "
                + jobId
                + " within "
                + SAVEPOINT_OUTCOME_PATIENCE.toSeconds()
                + " s after the job ended; the local session cluster stops now (the savepoint's"
                + " directory holds it if it completed)");
      }
      return exitCode;
    }
  }

  /** Waits for the job on the local session cluster to end; 0 when it finished. */
  private static int awaitEnd(ClusterClient c, String jobId) throws Exception {
    while (true) {
      JobDetails job = c.job(jobId);
      String state = job.state();
      switch (state) {
        case "FINISHED" -> {
          System.out.println("Job " + jobId + " finished.");
          return 0;
        }
        case "CANCELED" -> {
          System.out.println("Job " + jobId + " was cancelled.");
          return 1;
        }
        case "FAILED" -> {
          System.err.println(
              "weir run: job "
                  + jobId
                  + " failed: "
                  + (job.failure() == null ? state : job.failure()));
          return 1;
        }
        default -> Thread.sleep(200);
      }
    }
  }

  /** Checks the settings, uploads the jar and runs it; returns the job's id. */
  private String submit(ClusterClient c) throws Exception {
    Map<String, String> jobSettings = new LinkedHashMap<>(Settings.fromFile(config));
    jobSettings.putAll(Settings.parse(settings));
    if (fromSavepoint != null) {
      jobSettings.put(CheckpointingOptions.SAVEPOINT_PATH.key(), fromSavepoint);
    }
    if (allowNonRestoredState) {
      jobSettings.put(CheckpointingOptions.SAVEPOINT_IGNORE_UNCLAIMED_STATE.key(), "true");
    }
    if (claimMode != null) {
      jobSettings.put(CheckpointingOptions.RECOVERY_CLAIM_MODE.key(), claimMode.name());
    }
    // Before anything is uploaded: a misspelled key is named with the nearest known one.
    Configuration conf = new Configuration();
    jobSettings.forEach(conf::setString);
    KnownKeys.check(conf);
    if (client.jobManagerGiven()) {
      // The JobManager logs these too, but into its own log: say them where the user looks.
      // (The local session cluster's log is this console already.)
      KnownKeys.deprecationWarnings(conf)
          .forEach(warning -> System.err.println("weir run: warning: " + warning));
    }
    String jarId = c.upload(jar);
    String jobId = c.run(jarId, entryClass, args, parallelism, jobSettings);
    System.out.println("Job has been submitted with JobID " + jobId);
    return jobId;
  }
}

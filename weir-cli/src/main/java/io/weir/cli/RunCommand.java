package io.weir.cli;

import io.weir.api.RecoveryClaimMode;
import io.weir.api.config.CheckpointingOptions;
import io.weir.api.config.Configuration;
import io.weir.api.config.KnownKeys;
import io.weir.cluster.LocalSessionCluster;
import io.weir.cluster.client.ClusterClient;
import io.weir.cluster.client.JobJars;
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
            + " on the cluster of --jobmanager HOST:PORT, waiting for the job's end as flink run"
            + " does (-d: submitted, then this command returns). Everything after the jar is the"
            + " job's arguments. A failed job's stack trace is printed, the user's frames first.")
final class RunCommand implements Callable<Integer> {

  @picocli.CommandLine.ParentCommand WeirCli parent;

  @picocli.CommandLine.Spec picocli.CommandLine.Model.CommandSpec spec;

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

  @Parameters(
      index = "1..*",
      paramLabel = "ARGS",
      description =
          "Arguments of the main class: everything after the jar, options included (--input x).")
  List<String> args = new ArrayList<>();

  @Option(
      names = {"-d", "--detached"},
      description =
          "With --jobmanager: return once the job is submitted (printing its id) instead of"
              + " waiting for its end.")
  boolean detached;

  @Option(
      names = "--rest-port",
      paramLabel = "PORT",
      description =
          "Without --jobmanager: the local session cluster's REST port; default any free one.")
  Integer restPort;

  @Override
  public Integer call() throws Exception {
    // Everything is checked before anything starts: a typo costs no cluster start.
    JobJars.check(jar, jar.toString());
    JobJars.checkEntryClass(jar, jar.toString(), entryClass, RunCommand.class.getClassLoader());
    Map<String, String> jobSettings = jobSettings();
    if (client.jobManagerGiven()) {
      if (restPort != null) {
        throw new picocli.CommandLine.ParameterException(
            spec.commandLine(),
            "--rest-port is for the local session cluster: leave it out with --jobmanager");
      }
      ClusterClient c = client.client();
      String jobId = submit(c, jobSettings);
      return detached ? 0 : awaitEnd(c, jobId);
    }
    if (detached) {
      throw new picocli.CommandLine.ParameterException(
          spec.commandLine(),
          "-d (detached) needs --jobmanager HOST:PORT: without one the job runs in this process,"
              + " which ends with it");
    }
    if (fromSavepoint != null) {
      // This process restores it: a path that is not there is refused before anything starts.
      java.net.URI uri = io.weir.runtime.storage.FileSystems.toUri(fromSavepoint);
      if ("file".equals(uri.getScheme()) && !java.nio.file.Files.exists(Path.of(uri))) {
        throw new IllegalArgumentException(
            "-s "
                + fromSavepoint
                + ": does not exist; give a savepoint's or checkpoint's directory");
      }
    }
    Map<String, String> clusterSettings = new LinkedHashMap<>();
    if (restPort != null) {
      clusterSettings.put(io.weir.cluster.ClusterOptions.REST_PORT.key(), String.valueOf(restPort));
    }
    // The reporters' settings (-D metrics.reporter.prom.port=9250, -D
    // traces.reporter.otel.exporter.endpoint=...) are the local session cluster's: it serves the
    // job's metrics and sends its checkpoints' spans as a JobManager and a TaskManager would.
    Map<String, String> given = new LinkedHashMap<>(Settings.fromFile(config));
    given.putAll(Settings.parse(settings));
    clusterSettings.putAll(LocalSessionCluster.settingsOfItsOwn(given));
    try (LocalSessionCluster cluster = new LocalSessionCluster(clusterSettings)) {
      String address = "127.0.0.1:" + cluster.restPort();
      ClusterClient c = client.client(address);
      String jobId = submit(c, jobSettings);
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

  /**
   * Waits for the job to end; 0 when it finished. A failed job's stack trace is printed: the user's
   * frames first, all of it with {@code --verbose}.
   */
  private int awaitEnd(ClusterClient c, String jobId) throws Exception {
    boolean toldWaiting = false;
    while (true) {
      JobDetails job = c.job(jobId);
      String state = job.state();
      int scheduled = scheduledSubtasks(job);
      if (scheduled > 0 && !toldWaiting) {
        System.err.println(
            "weir run: job "
                + jobId
                + " waits for slots: "
                + scheduled
                + " of its subtasks are SCHEDULED (until slot.request.timeout; weir list and the"
                + " TaskManagers' free slots in GET /overview show where it stands)");
        toldWaiting = true;
      }
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
          printFailure(job);
          return 1;
        }
        default -> Thread.sleep(200); // polling the REST API, as Flink's attached client does
      }
    }
  }

  /** How many of the job's subtasks wait for slots. */
  private static int scheduledSubtasks(JobDetails job) {
    if (job.vertices() == null) {
      return 0;
    }
    return job.vertices().stream()
        .mapToInt(v -> v.tasks() == null ? 0 : v.tasks().getOrDefault("SCHEDULED", 0))
        .sum();
  }

  private void printFailure(JobDetails job) {
    System.err.println(
        "weir run: job "
            + job.jid()
            + " ('"
            + job.name()
            + "') failed: "
            + (job.failure() == null ? job.state() : job.failure()));
    String trace = job.exceptions() == null ? null : job.exceptions().rootException();
    if (trace == null || trace.isBlank()) {
      return;
    }
    if (parent != null && parent.verbose) {
      System.err.println("The failure's stack trace, as its TaskManager raised it:");
      System.err.print(trace);
    } else {
      System.err.println("The failure, your code's frames first:");
      System.err.print(JobFailure.userFrames(trace));
      System.err.println(
          "(run with --verbose for the whole stack trace; GET /jobs/"
              + job.jid()
              + "/exceptions has it too)");
    }
  }

  /** The job's settings: the config file's, then -D's and the options'; checked. */
  private Map<String, String> jobSettings() {
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
    return jobSettings;
  }

  /** Uploads the jar and runs it; returns the job's id. */
  private String submit(ClusterClient c, Map<String, String> jobSettings) throws Exception {
    Configuration conf = new Configuration();
    jobSettings.forEach(conf::setString);
    if (client.jobManagerGiven()) {
      // The JobManager logs these too, but into its own log: say them where the user looks.
      // (The local session cluster's log is this console already.)
      KnownKeys.warnings(conf)
          .forEach(warning -> System.err.println("weir run: warning: " + warning));
    }
    String jarId;
    try {
      jarId = c.upload(jar);
    } catch (ClusterClient.RefusedException e) {
      throw new CommandFailure(jar + ": " + String.join("; ", e.reasons()), e);
    }
    String jobId;
    try {
      jobId = c.run(jarId, entryClass, args, parallelism, jobSettings);
    } catch (ClusterClient.RefusedException e) {
      throw new CommandFailure(inUsersWords(e.reasons(), jarId), e);
    }
    System.out.println("Job has been submitted with JobID " + jobId);
    return jobId;
  }

  /**
   * The JobManager's reasons for refusing to run the jar, naming the jar as the user gave it rather
   * than by the id (its hash) it was stored under.
   */
  private String inUsersWords(List<String> reasons, String jarId) {
    String given = jar.toString();
    List<String> said = new ArrayList<>();
    for (String reason : reasons) {
      said.add(
          reason
              .replace(", or entryClass in POST /jars/" + jarId + "/run", "")
              .replaceAll("'[^']*' \\(" + jarId + "\\)", given)
              .replace(jarId + ".jar", given)
              .replace(jarId, given));
    }
    return String.join("; ", said);
  }
}

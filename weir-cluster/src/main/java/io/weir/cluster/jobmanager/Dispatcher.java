package io.weir.cluster.jobmanager;

import io.weir.api.CheckpointConfig;
import io.weir.api.JobClient;
import io.weir.api.JobID;
import io.weir.api.JobStatus;
import io.weir.api.config.CheckpointingOptions;
import io.weir.api.config.Configuration;
import io.weir.api.graph.Pipeline;
import io.weir.cluster.ClusterOptions;
import io.weir.cluster.client.JobClassLoader;
import io.weir.cluster.client.JobProgram;
import io.weir.cluster.ha.FencedException;
import io.weir.cluster.ha.JobResult;
import io.weir.cluster.ha.SubmittedJob;
import io.weir.cluster.metrics.CheckpointSpans;
import io.weir.cluster.metrics.ProcessMetrics;
import io.weir.cluster.rpc.JarStore;
import io.weir.runtime.graph.JobGraph;
import io.weir.runtime.jobmaster.JobMaster;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.ScheduledExecutorService;
import java.util.jar.JarFile;
import java.util.jar.Manifest;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The JobManager's jobs: stores uploaded jars, runs a jar's program to submit its job (a {@link
 * JobMaster} whose gateway is a {@link ClusterGateway}), and keeps every job for the REST API.
 * Thread safe.
 */
public final class Dispatcher {

  private static final Logger LOG = LoggerFactory.getLogger(Dispatcher.class);

  /** How long a program's main may take to call execute. */
  private static final long MAIN_TIMEOUT_MILLIS = 60_000;

  /** A job of this JobManager. */
  public record Job(
      String id,
      String name,
      JobMaster master,
      ClusterGateway gateway,
      JobProgram program,
      long startTime) {

    public JobStatus status() {
      return master.getJobStatus().join();
    }
  }

  private final JarStore jars;
  private final TaskManagerRegistry registry;
  private final ClusterOptions options;

  /** Where every job's metrics are reported while it runs. */
  private final ProcessMetrics metrics;

  /** Where the spans of every job's checkpoints are sent. */
  private final CheckpointSpans spans;

  /** The job settings of this JobManager's configuration, beneath every job's own. */
  private final Configuration jobDefaults;

  private final Map<String, Job> jobs = new LinkedHashMap<>();

  /** Recovers the jobs of a previous leader, again later while their checkpoints are unreadable. */
  private final JobRecoveries recoveries;

  /** Whether this JobManager runs under high availability: it acts only while it leads. */
  private final boolean highAvailability;

  /**
   * This JobManager's term as leader under high availability, or null while it does not lead (or
   * runs without high availability).
   */
  private volatile LeaderSession leader;

  Dispatcher(
      JarStore jars,
      TaskManagerRegistry registry,
      ClusterOptions options,
      boolean highAvailability,
      ProcessMetrics metrics,
      CheckpointSpans spans,
      ScheduledExecutorService timer) {
    this.jars = jars;
    // A job's main may take a while: never on the timer's thread.
    Executor ownThread =
        attempt -> {
          Thread t = new Thread(attempt, "weir-job-recovery");
          t.setDaemon(true);
          t.start();
        };
    this.recoveries = new JobRecoveries(timer, ownThread, 1000, 30_000);
    this.spans = spans;
    this.registry = registry;
    this.options = options;
    this.metrics = metrics;
    this.highAvailability = highAvailability;
    this.jobDefaults = new Configuration();
    options.jobDefaults().forEach(jobDefaults::setString);
  }

  /** Whether this JobManager acts for the cluster: always without high availability. */
  public boolean isLeading() {
    return !highAvailability || leader != null;
  }

  /**
   * This JobManager leads from now on ({@code session}'s epoch): every job a previous leader was
   * given and that has no result is run again, from its newest recorded checkpoint.
   */
  void grantLeadership(LeaderSession session) {
    leader = session;
    List<SubmittedJob> recover;
    try {
      recover = session.jobsToRecover(jars);
    } catch (IOException | RuntimeException e) {
      LOG.error(
          "Leading with {}, the submitted jobs cannot be read: none is recovered",
          session.epoch(),
          e);
      return;
    }
    for (SubmittedJob job : recover) {
      if (leader != session) {
        return; // revoked meanwhile
      }
      recover(session, job);
    }
    LOG.info("Leading with {}: {} job(s) to recover were found", session.epoch(), recover.size());
  }

  /** Runs a job a previous leader was given, again later while its checkpoints cannot be read. */
  private void recover(LeaderSession session, SubmittedJob job) {
    String what = "job '" + job.jobName() + "' (" + job.jobId() + ")";
    recoveries.recover(
        what,
        () -> leader == session,
        () -> {
          LOG.info("Recovering {} as the leader of {}", what, session.epoch());
          run(job.jarId(), job.entryClass(), job.args(), job.parallelism(), job.settings(), job);
        });
  }

  /**
   * This JobManager no longer leads: every job is suspended (its tasks left to the next leader,
   * nothing deleted) and forgotten here, and so is every TaskManager, which registers with the new
   * leader.
   */
  void revokeLeadership() {
    leader = null;
    List<Job> suspended;
    synchronized (this) {
      suspended = new ArrayList<>(jobs.values());
      jobs.clear();
    }
    for (Job job : suspended) {
      job.master().suspend("this JobManager no longer leads the cluster");
    }
    registry.forgetAll();
  }

  /**
   * The epoch this JobManager leads with; 0 while it does not lead or without high availability.
   */
  public long leaderEpoch() {
    LeaderSession session = leader;
    return session == null ? 0 : session.epoch().value();
  }

  private LeaderSession checkLeading() {
    LeaderSession session = leader;
    if (highAvailability && session == null) {
      throw new NotLeaderException();
    }
    return session;
  }

  public JarStore jars() {
    return jars;
  }

  /** This JobManager's settings. */
  public ClusterOptions options() {
    return options;
  }

  public String upload(InputStream in, String name) throws IOException {
    String id = jars.store(in, name);
    LOG.info("Stored jar '{}' as {}", name, id);
    return id;
  }

  /**
   * Runs the program of jar {@code jarId} and returns its job's id.
   *
   * @throws IllegalArgumentException naming the jar, class or setting at fault
   */
  public String run(
      String jarId,
      String entryClass,
      List<String> args,
      Integer parallelism,
      Map<String, String> settings)
      throws Exception {
    checkLeading();
    return run(jarId, entryClass, args, parallelism, settings, null);
  }

  /**
   * Runs the program of a jar: a new submission when {@code recovered} is null, else the job a
   * previous leader was given, under its own id.
   */
  private String run(
      String jarId,
      String entryClass,
      List<String> args,
      Integer parallelism,
      Map<String, String> settings,
      SubmittedJob recovered)
      throws Exception {
    if (!jars.contains(jarId)) {
      throw new IllegalArgumentException(
          "No jar " + jarId + " on this JobManager: upload it first (POST /jars/upload)");
    }
    Path jar = jars.path(jarId);
    // Refused before its main runs: a Flink job would fail there on a missing Flink class.
    io.weir.cluster.client.JobJars.check(jar, "The jar " + jars.describe(jarId));
    String entry =
        entryClass == null || entryClass.isBlank() ? mainClassOf(jar, jarId) : entryClass;
    Map<String, String> all = new LinkedHashMap<>(settings);
    if (parallelism != null) {
      if (parallelism < 1) {
        throw new IllegalArgumentException(
            "The parallelism must be at least 1, not " + parallelism);
      }
      all.put("parallelism.default", String.valueOf(parallelism));
    }
    JobProgram program = new JobProgram(jarId, entry, args, all);
    JobClassLoader loader =
        new JobClassLoader(jar, Dispatcher.class.getClassLoader(), entry + " of " + jarId);
    // Closed once the job ended and its main returned (it may go on after execute()).
    CompletableFuture<Void> mainEnded = new CompletableFuture<>();
    try {
      JobClient client =
          program.run(
              loader,
              pipeline -> submit(program, parallelism, pipeline, loader, mainEnded, recovered),
              MAIN_TIMEOUT_MILLIS,
              JobClient.class,
              () -> mainEnded.complete(null));
      return client.getJobID().toString();
    } catch (Exception e) {
      loader.close();
      throw e;
    }
  }

  private static String mainClassOf(Path jar, String jarId) throws IOException {
    try (JarFile file = new JarFile(jar.toFile())) {
      Manifest manifest = file.getManifest();
      String main = manifest == null ? null : manifest.getMainAttributes().getValue("Main-Class");
      if (main == null || main.isBlank()) {
        throw new IllegalArgumentException(
            "The jar "
                + jarId
                + " names no Main-Class in its manifest: give the entry class (weir run --class,"
                + " or entryClass in POST /jars/"
                + jarId
                + "/run)");
      }
      return main.strip();
    }
  }

  private JobClient submit(
      JobProgram program,
      Integer parallelism,
      Pipeline pipeline,
      JobClassLoader loader,
      CompletableFuture<Void> mainEnded,
      SubmittedJob recovered) {
    JobGraph graph = JobProgram.buildGraph(pipeline, jobDefaults, program.settings());
    warnAboutStorage(graph);
    LeaderSession session = checkLeading();
    JobMaster.Setup setup = JobMaster.Setup.newJob();
    if (session != null) {
      checkRecoverable(graph);
      JobID jobId = recovered != null ? new JobID(recovered.jobId()) : JobID.generate();
      setup = session.setup(jobId, recovered != null);
      if (recovered == null) {
        try {
          session.jobSubmitted(
              new SubmittedJob(
                  jobId.value(),
                  graph.jobName(),
                  program.jarId(),
                  program.entryClass(),
                  program.args(),
                  parallelism,
                  program.settings(),
                  System.currentTimeMillis()),
              jars.path(program.jarId()));
        } catch (FencedException e) {
          throw new NotLeaderException(); // a newer leader took over meanwhile
        } catch (IOException e) {
          throw new UncheckedIOException(
              "Cannot record job '"
                  + graph.jobName()
                  + "' for the leaders to come: "
                  + e.getMessage(),
              e);
        }
      }
    }
    long slotWait =
        graph.configuration().contains(ClusterOptions.SLOT_REQUEST_TIMEOUT)
            ? graph.configuration().get(ClusterOptions.SLOT_REQUEST_TIMEOUT).toMillis()
            : options.get(ClusterOptions.SLOT_REQUEST_TIMEOUT).toMillis();
    Duration adoptionWait = session != null ? session.adoptionWait() : Duration.ZERO;
    ClusterGateway[] gateway = new ClusterGateway[1];
    JobMaster master =
        new JobMaster(
            graph,
            setup,
            loader,
            jm -> {
              gateway[0] = new ClusterGateway(program, registry, slotWait, adoptionWait, jm);
              return gateway[0];
            });
    String id = master.getJobID().toString();
    if (session != null) {
      master.recordEndWith(
          (status, endTime, failure, checkpointsToDelete) ->
              session.jobReachedEnd(
                  new JobResult(
                      id, graph.jobName(), status, endTime, failure, checkpointsToDelete)));
    }
    Job job = new Job(id, graph.jobName(), master, gateway[0], program, System.currentTimeMillis());
    synchronized (this) {
      jobs.put(id, job);
    }
    if (session != null) {
      var recorded =
          master
              .getJobExecutionResult()
              .handle((r, e) -> null)
              .thenRun(() -> recordResult(session, job));
    }
    // Reported until the job ends here (finished, failed, cancelled or suspended).
    var reported = metrics.registerJob(id, graph.jobName(), master::currentMetrics);
    var traced = spans.registerJob(id, graph.jobName(), master::getCheckpointStatistics);
    var unreported =
        master
            .getJobExecutionResult()
            .handle((r, e) -> null)
            .thenRun(
                () -> {
                  reported.close();
                  traced.close();
                });
    var unused =
        master
            .getJobExecutionResult()
            .handle((r, e) -> null)
            .thenCombine(mainEnded, (a, b) -> null)
            .whenComplete(
                (r, e) -> {
                  try {
                    loader.close();
                  } catch (IOException ex) {
                    LOG.debug("Closing the class loader of job {} failed", id, ex);
                  }
                });
    LOG.info("Job '{}' ({}) submitted from {}", graph.jobName(), id, program.entryClass());
    master.start();
    return master;
  }

  /**
   * Under high availability a job's checkpoints must outlive this process: refuses one whose
   * checkpoints would stay in the JobManager's memory.
   */
  private static void checkRecoverable(JobGraph graph) {
    Configuration conf = graph.configuration();
    if (CheckpointConfig.isCheckpointingEnabled(conf)
        && conf.getOptional(CheckpointingOptions.CHECKPOINTS_DIRECTORY).isEmpty()) {
      throw new IllegalArgumentException(
          "Job '"
              + graph.jobName()
              + "' takes checkpoints but has no checkpoint directory: with high availability its"
              + " checkpoints must survive this JobManager. Set "
              + CheckpointingOptions.CHECKPOINTS_DIRECTORY.key()
              + " to a directory every JobManager and TaskManager reaches (HDFS, S3 or a shared"
              + " file system)");
    }
  }

  /** The job ended under {@code session}: its result is recorded, unless it was suspended. */
  private void recordResult(LeaderSession session, Job job) {
    JobStatus status = job.status();
    if (!status.isGloballyTerminalState() || leader != session) {
      return;
    }
    String failure = null;
    try {
      job.master().getJobExecutionResult().join();
    } catch (RuntimeException e) {
      failure = e.getCause() != null ? e.getCause().getMessage() : e.getMessage();
    }
    try {
      session.jobEnded(
          new JobResult(job.id(), job.name(), status, job.master().endTimeMillis(), failure));
      LOG.info(
          "Job '{}' ({}) ended {}: recorded, no later leader runs it",
          job.name(),
          job.id(),
          status);
    } catch (IOException | RuntimeException e) {
      LOG.warn(
          "The result of job '{}' ({}) could not be recorded: {}",
          job.name(),
          job.id(),
          e.toString());
    }
  }

  private static void warnAboutStorage(JobGraph graph) {
    Configuration conf = graph.configuration();
    String where =
        conf.getOptional(CheckpointingOptions.CHECKPOINTS_DIRECTORY)
            .or(() -> conf.getOptional(CheckpointingOptions.CHECKPOINT_STORAGE))
            .orElse(null);
    if (where != null && (where.startsWith("file:") || where.startsWith("/"))) {
      LOG.warn(
          "Job '{}' keeps checkpoints at {}, a local file system: every TaskManager must see the"
              + " same directory, so this works only with all processes on one machine (or a"
              + " shared mount)",
          graph.jobName(),
          where);
    }
  }

  public synchronized Job job(String id) {
    Job job = jobs.get(id);
    if (job == null) {
      throw new NoSuchJobException(id);
    }
    return job;
  }

  public synchronized List<Job> jobs() {
    return new ArrayList<>(jobs.values());
  }

  /** This JobManager does not lead the cluster (high availability): it acts for no job. */
  public static final class NotLeaderException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public NotLeaderException() {
      super(
          "This JobManager is a standby and does not lead the cluster: ask the leader (weir -m"
              + " zookeeper finds it, or GET /health/leader answers 200 on it)");
    }
  }

  /** A job id this JobManager does not know. */
  public static final class NoSuchJobException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    NoSuchJobException(String id) {
      super("No job " + id + " on this JobManager: list the jobs with 'weir list' (GET /jobs)");
    }
  }
}

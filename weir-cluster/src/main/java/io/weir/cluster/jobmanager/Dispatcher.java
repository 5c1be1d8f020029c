package io.weir.cluster.jobmanager;

import io.weir.api.JobClient;
import io.weir.api.JobStatus;
import io.weir.api.config.CheckpointingOptions;
import io.weir.api.config.Configuration;
import io.weir.api.graph.Pipeline;
import io.weir.cluster.ClusterOptions;
import io.weir.cluster.client.JobClassLoader;
import io.weir.cluster.client.JobProgram;
import io.weir.cluster.rpc.JarStore;
import io.weir.runtime.graph.JobGraph;
import io.weir.runtime.jobmaster.JobMaster;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
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

  /** The job settings of this JobManager's configuration, beneath every job's own. */
  private final Configuration jobDefaults;

  private final Map<String, Job> jobs = new LinkedHashMap<>();

  Dispatcher(JarStore jars, TaskManagerRegistry registry, ClusterOptions options) {
    this.jars = jars;
    this.registry = registry;
    this.options = options;
    this.jobDefaults = new Configuration();
    options.jobDefaults().forEach(jobDefaults::setString);
  }

  JarStore jars() {
    return jars;
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
    if (!jars.contains(jarId)) {
      throw new IllegalArgumentException(
          "No jar " + jarId + " on this JobManager: upload it first (POST /jars/upload)");
    }
    Path jar = jars.path(jarId);
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
              pipeline -> submit(program, pipeline, loader, mainEnded),
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
      Pipeline pipeline,
      JobClassLoader loader,
      CompletableFuture<Void> mainEnded) {
    JobGraph graph = JobProgram.buildGraph(pipeline, jobDefaults, program.settings());
    warnAboutStorage(graph);
    long slotWait =
        graph.configuration().contains(ClusterOptions.SLOT_REQUEST_TIMEOUT)
            ? graph.configuration().get(ClusterOptions.SLOT_REQUEST_TIMEOUT).toMillis()
            : options.get(ClusterOptions.SLOT_REQUEST_TIMEOUT).toMillis();
    ClusterGateway[] gateway = new ClusterGateway[1];
    JobMaster master =
        new JobMaster(
            graph,
            jm -> {
              gateway[0] = new ClusterGateway(program, registry, slotWait, jm);
              return gateway[0];
            });
    String id = master.getJobID().toString();
    Job job = new Job(id, graph.jobName(), master, gateway[0], program, System.currentTimeMillis());
    synchronized (this) {
      jobs.put(id, job);
    }
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

  /** A job id this JobManager does not know. */
  public static final class NoSuchJobException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    NoSuchJobException(String id) {
      super("No job " + id + " on this JobManager: list the jobs with 'weir list' (GET /jobs)");
    }
  }
}

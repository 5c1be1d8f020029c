package io.weir.benchmarks.w8;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Weir's cluster for W8: {@code ClusterMain jobmanager} and {@code ClusterMain taskmanager} JVMs on
 * 127.0.0.1, on {@code target/classpath-weir-cluster.txt} (weir-cluster and its dependencies, no
 * benchmark class), logging through logback at INFO for Weir's own lines. With {@code
 * high-availability.type: zookeeper} among its cluster settings it runs any number of JobManagers
 * ({@link HaBenchCluster}), and its TaskManagers follow the leader ZooKeeper publishes instead of
 * one given JobManager.
 */
final class WeirBenchCluster implements HaBenchCluster {
  private static final Pattern JM_STARTED = Pattern.compile("JobManager started: control port");
  private static final Pattern TM_STARTED = Pattern.compile("TaskManager (tm-\\S+) started");
  private static final Pattern PORT = Pattern.compile(":(\\d+)$");
  private static final Duration START_TIMEOUT = Duration.ofSeconds(120);

  private final Path dir;
  private final String classpath;
  private final Map<String, String> jobSettings;
  private final Map<String, String> clusterSettings;
  private final List<JvmProcess> processes = new ArrayList<>();
  private final List<JobManager> jobManagers = new ArrayList<>();
  private final int firstRpcPort;
  private final int slotsPerTaskManager;
  private Rest rest;

  WeirBenchCluster(Path dir, Map<String, String> jobSettings, int slotsPerTaskManager)
      throws Exception {
    this(dir, jobSettings, slotsPerTaskManager, Map.of());
  }

  /**
   * Starts the first JobManager and returns once it serves.
   *
   * @param clusterSettings what every process gets besides W8's heartbeats (high availability)
   */
  WeirBenchCluster(
      Path dir,
      Map<String, String> jobSettings,
      int slotsPerTaskManager,
      Map<String, String> clusterSettings)
      throws Exception {
    this.dir = dir;
    this.slotsPerTaskManager = slotsPerTaskManager;
    this.jobSettings = jobSettings;
    this.clusterSettings = Map.copyOf(clusterSettings);
    this.classpath = W8Classpaths.weirCluster();
    writeLogback(dir.resolve("logback.xml"), List.of());
    firstRpcPort = JvmProcess.freePort();
    JobManager first = startJobManager(firstRpcPort);
    awaitServing(first);
    rest = new Rest(first.restPort());
  }

  /**
   * Writes a logback configuration to {@code file}: WARN, INFO for {@code infoLoggers} (Weir's
   * processes set INFO for Weir's own lines themselves), times of day to the millisecond.
   */
  static Path writeLogback(Path file, List<String> infoLoggers) throws IOException {
    StringBuilder loggers = new StringBuilder();
    infoLoggers.forEach(
        l -> loggers.append("  <logger name=\"").append(l).append("\" level=\"INFO\"/>\n"));
    Files.writeString(
        file,
        """
        <configuration>
          <appender name="OUT" class="ch.qos.logback.core.ConsoleAppender">
            <encoder><pattern>%d{HH:mm:ss.SSS} %-5level [%thread] %logger{36} - %msg%n</pattern></encoder>
          </appender>
          <root level="WARN"><appender-ref ref="OUT"/></root>
        """
            + loggers
            + "</configuration>\n");
    return file;
  }

  private boolean highAvailability() {
    return clusterSettings.containsKey("high-availability.type");
  }

  private List<String> settings(Map<String, String> extra) {
    Map<String, String> all = new LinkedHashMap<>(W8Run.HEARTBEATS);
    all.put("slot.request.timeout", "120000");
    all.putAll(clusterSettings);
    all.putAll(extra);
    List<String> args = new ArrayList<>();
    all.forEach((k, v) -> args.addAll(List.of("-D", k + "=" + v)));
    return args;
  }

  private JvmProcess start(String name, String heap, List<String> args) throws IOException {
    JvmProcess p =
        JvmProcess.start(
            name,
            dir,
            classpath,
            List.of("-Xmx" + heap, "-Dlogback.configurationFile=" + dir.resolve("logback.xml")),
            "io.weir.cluster.ClusterMain",
            args);
    processes.add(p);
    return p;
  }

  @Override
  public JobManager startJobManager() throws IOException {
    return startJobManager(JvmProcess.freePort());
  }

  private JobManager startJobManager(int rpcPort) throws IOException {
    int restPort = JvmProcess.freePort();
    List<String> args = new ArrayList<>(List.of("jobmanager"));
    args.addAll(
        settings(
            Map.of(
                "jobmanager.rpc.port",
                Integer.toString(rpcPort),
                "rest.port",
                Integer.toString(restPort),
                "web.upload.dir",
                dir.resolve("jars").toString())));
    JobManager jm =
        new JobManager(
            start("jobmanager-" + processes.size(), W8Run.JOB_MANAGER_HEAP, args), restPort);
    jobManagers.add(jm);
    return jm;
  }

  @Override
  public void awaitServing(JobManager jobManager) throws IOException, InterruptedException {
    jobManager.process().awaitLog(JM_STARTED, START_TIMEOUT);
  }

  /** The JobManager whose {@code GET /health/leader} answers 200. */
  @Override
  public JobManager awaitLeader(Duration timeout) throws IOException, InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (true) {
      for (JobManager jm : jobManagers) {
        if (jm.process().alive() && new Rest(jm.restPort()).answers("/health/leader")) {
          rest = new Rest(jm.restPort());
          return jm;
        }
      }
      if (System.nanoTime() > deadline) {
        throw new IOException(
            "W8: no Weir JobManager answered GET /health/leader within "
                + timeout.toSeconds()
                + " s; see the jobmanager-*.log files in "
                + dir);
      }
      Thread.sleep(20);
    }
  }

  /**
   * Where Weir's leader publishes itself under {@code clusterId}: {@code /weir/<id>/leader/info}.
   */
  static String leaderZnode(String clusterId) {
    return "/weir/" + clusterId.replaceAll("^/+|/+$", "") + "/leader/info";
  }

  @Override
  public String leaderZnode() {
    return leaderZnode(clusterSettings.get("high-availability.cluster-id"));
  }

  /** JSON whose {@code restAddress} is {@code host:port}. */
  @Override
  public int leaderRestPort(byte[] znodeData) throws IOException {
    String address = Rest.json(znodeData).path("restAddress").asText();
    Matcher port = PORT.matcher(address);
    if (!port.find()) {
      throw new IOException("W8: no REST port in Weir's leader znode: " + address);
    }
    return Integer.parseInt(port.group(1));
  }

  @Override
  public Rest rest() {
    return rest;
  }

  @Override
  public JvmProcess startTaskManager() throws IOException, InterruptedException {
    List<String> args =
        new ArrayList<>(List.of("taskmanager", "--slots", Integer.toString(slotsPerTaskManager)));
    if (!highAvailability()) {
      args.addAll(List.of("--jobmanager", "127.0.0.1:" + firstRpcPort));
    }
    args.addAll(settings(Map.of()));
    JvmProcess tm =
        start(
            "taskmanager-" + processes.size(),
            W8Run.taskManagerHeapMb(slotsPerTaskManager) + "m",
            args);
    String id = tm.awaitLog(TM_STARTED, START_TIMEOUT).group(1);
    long deadline = System.nanoTime() + START_TIMEOUT.toNanos();
    while (!rest.get("/taskmanagers").toString().contains("\"" + id + "\"")) {
      tm.checkAlive();
      if (System.nanoTime() > deadline) {
        throw tm.failure("did not register within " + START_TIMEOUT.toSeconds() + " s");
      }
      Thread.sleep(50);
    }
    return tm;
  }

  @Override
  public String submit(long records, String markerDir, String traceDir) throws Exception {
    String jarId =
        rest.postJar("/jars/upload", JobJar.write(dir.resolve("w8-job.jar"))).path("id").asText();
    List<String> args =
        new ArrayList<>(
            List.of(
                Long.toString(records),
                markerDir.isEmpty() ? "-" : markerDir,
                traceDir.isEmpty() ? "-" : traceDir));
    jobSettings.forEach((k, v) -> args.add(k + "=" + v));
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("entryClass", WeirW8Job.class.getName());
    body.put("programArgsList", args);
    body.put("parallelism", 2);
    body.put("configuration", jobSettings);
    return rest.postJson("/jars/" + jarId + "/run", body).path("jobid").asText();
  }

  @Override
  public String state(String jobId) throws IOException, InterruptedException {
    return rest.get("/jobs/" + jobId).path("state").asText();
  }

  @Override
  public long endTimeMillis(String jobId) throws IOException, InterruptedException {
    return rest.get("/jobs/" + jobId).path("end-time").asLong(-1);
  }

  @Override
  public long completedCheckpoints(String jobId) throws IOException, InterruptedException {
    return rest.get("/jobs/" + jobId + "/checkpoints").path("counts").path("completed").asLong();
  }

  @Override
  public List<Failure> failures(String jobId) throws IOException, InterruptedException {
    List<Failure> failures = new ArrayList<>();
    JsonNode job = rest.get("/jobs/" + jobId);
    job.path("exceptions")
        .path("exceptionHistory")
        .path("entries")
        .forEach(
            e ->
                failures.add(
                    new Failure(
                        e.path("timestamp").asLong(),
                        e.path("taskName").asText() + ": " + e.path("message").asText())));
    failures.sort(Comparator.comparingLong(Failure::epochMillis));
    return failures;
  }

  @Override
  public List<JvmProcess> processes() {
    return List.copyOf(processes);
  }

  @Override
  public void close() {
    processes.forEach(JvmProcess::close);
  }
}

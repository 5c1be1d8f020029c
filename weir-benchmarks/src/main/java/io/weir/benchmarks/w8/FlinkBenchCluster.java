package io.weir.benchmarks.w8;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.ObjectInputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.runtime.clusterframework.TaskExecutorProcessSpec;
import org.apache.flink.runtime.clusterframework.TaskExecutorProcessUtils;
import org.apache.flink.runtime.util.config.memory.ProcessMemoryUtils;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;

/**
 * Flink's standalone session cluster for W8, from Flink's Maven artifacts ({@code
 * target/classpath-flink.txt}, no benchmark class): a {@code StandaloneSessionClusterEntrypoint}
 * JVM and {@code TaskManagerRunner} JVMs with the same number of slots, all on 127.0.0.1, reading a
 * generated {@code config.yaml}. Jobs go in through a remote environment (Flink's REST client: the
 * job graph and the job jar uploaded to {@code /jobs}). With {@code high-availability.type:
 * zookeeper} among its cluster settings it runs any number of JobManagers ({@link HaBenchCluster}):
 * more entrypoints with the same {@code config.yaml} and a REST port each, standbys until ZooKeeper
 * elects one; the TaskManagers find the leader in ZooKeeper.
 */
final class FlinkBenchCluster implements HaBenchCluster {
  private static final Pattern SPACES = Pattern.compile("\\s+");
  private static final Duration START_TIMEOUT = Duration.ofSeconds(120);
  private static final Pattern REST_LISTENING = Pattern.compile("Rest endpoint listening at");
  private static final Pattern PORT = Pattern.compile(":(\\d+)/?$");
  private static final String ENTRYPOINT =
      "org.apache.flink.runtime.entrypoint.StandaloneSessionClusterEntrypoint";

  private final Path dir;
  private final Path confDir;
  private final String classpath;
  private final Map<String, String> jobSettings;
  private final List<JvmProcess> processes = new ArrayList<>();
  private final List<JobManager> jobManagers = new ArrayList<>();
  private final Map<String, String> clusterSettings;
  private final ZooKeeperServer zooKeeper;
  private Rest rest;
  private int restPort;
  private final List<JobClient> clients = new ArrayList<>();
  private final List<String> taskManagerJvm;
  private final List<String> taskManagerArgs;

  FlinkBenchCluster(Path dir, Map<String, String> jobSettings, int slotsPerTaskManager)
      throws Exception {
    this(dir, jobSettings, slotsPerTaskManager, Map.of(), null);
  }

  /**
   * Writes {@code config.yaml}, starts the first JobManager and returns once its REST API answers.
   *
   * @param clusterSettings what {@code config.yaml} holds besides W8's settings (high availability)
   * @param zooKeeper the server of {@code clusterSettings}' quorum, to read the published leader
   *     from; null without high availability
   */
  FlinkBenchCluster(
      Path dir,
      Map<String, String> jobSettings,
      int slotsPerTaskManager,
      Map<String, String> clusterSettings,
      ZooKeeperServer zooKeeper)
      throws Exception {
    this.dir = dir;
    this.clusterSettings = Map.copyOf(clusterSettings);
    this.zooKeeper = zooKeeper;
    this.jobSettings = jobSettings;
    this.classpath = W8Classpaths.flink();
    this.confDir = Files.createDirectories(dir.resolve("flink-conf"));
    this.restPort = JvmProcess.freePort();
    Map<String, String> conf = new LinkedHashMap<>();
    conf.put("jobmanager.rpc.address", "127.0.0.1");
    conf.put("jobmanager.rpc.port", Integer.toString(JvmProcess.freePort()));
    conf.put("jobmanager.bind-host", "127.0.0.1");
    conf.put("jobmanager.memory.process.size", "1600m");
    conf.put("rest.address", "127.0.0.1");
    conf.put("rest.bind-address", "127.0.0.1");
    conf.put("rest.port", Integer.toString(restPort));
    conf.put("blob.server.port", "0");
    conf.put("taskmanager.bind-host", "127.0.0.1");
    conf.put("taskmanager.host", "127.0.0.1");
    conf.put("taskmanager.rpc.port", "0");
    conf.put("taskmanager.data.port", "0");
    conf.put("taskmanager.numberOfTaskSlots", Integer.toString(slotsPerTaskManager));
    // JVM heap = framework heap (128m, the default) + task heap = the -Xmx Weir's TaskManagers
    // get; managed memory 128m per slot.
    conf.put(
        "taskmanager.memory.task.heap.size",
        (W8Run.taskManagerHeapMb(slotsPerTaskManager) - 128) + "m");
    conf.put("taskmanager.memory.managed.size", (128 * slotsPerTaskManager) + "m");
    conf.put("parallelism.default", "2");
    conf.put("web.checkpoints.history", "1000");
    conf.putAll(W8Run.HEARTBEATS);
    conf.putAll(clusterSettings);
    StringBuilder yaml = new StringBuilder();
    conf.forEach((k, v) -> yaml.append(k).append(": ").append(v).append('\n'));
    Files.writeString(confDir.resolve("config.yaml"), yaml.toString());

    // What Flink's start scripts compute (BashJavaUtils): the TaskManager's memory spec as
    // dynamic settings, and its JVM heap, direct and metaspace limits. -Xms is left out, as
    // Weir's TaskManagers get none.
    TaskExecutorProcessSpec spec =
        TaskExecutorProcessUtils.processSpecFromConfig(Configuration.fromMap(conf));
    taskManagerJvm =
        SPACES
            .splitAsStream(ProcessMemoryUtils.generateJvmParametersStr(spec).strip())
            .filter(option -> !option.startsWith("-Xms"))
            .toList();
    taskManagerArgs = new ArrayList<>(List.of("--configDir", confDir.toString()));
    taskManagerArgs.addAll(
        SPACES
            .splitAsStream(TaskExecutorProcessUtils.generateDynamicConfigsStr(spec).strip())
            .toList());

    JvmProcess jm = startJobManager(restPort).process();
    rest = new Rest(restPort);
    long deadline = System.nanoTime() + START_TIMEOUT.toNanos();
    while (!rest.answers("/overview")) {
      jm.checkAlive();
      if (System.nanoTime() > deadline) {
        throw jm.failure("served no REST API within " + START_TIMEOUT.toSeconds() + " s");
      }
      Thread.sleep(100);
    }
  }

  @Override
  public JobManager startJobManager() throws IOException {
    return startJobManager(JvmProcess.freePort());
  }

  /** A JobManager on {@code port}; under high availability its RPC port is a random one. */
  private JobManager startJobManager(int port) throws IOException {
    JobManager jm =
        new JobManager(
            start(
                "jobmanager" + (jobManagers.isEmpty() ? "" : "-" + processes.size()),
                List.of("-Xmx" + W8Run.JOB_MANAGER_HEAP),
                ENTRYPOINT,
                List.of("--configDir", confDir.toString(), "-Drest.port=" + port)),
            port);
    jobManagers.add(jm);
    return jm;
  }

  @Override
  public void awaitServing(JobManager jobManager) throws IOException, InterruptedException {
    jobManager.process().awaitLog(REST_LISTENING, START_TIMEOUT);
  }

  /** The JobManager whose REST endpoint ZooKeeper publishes as the leader's. */
  @Override
  public JobManager awaitLeader(Duration timeout) throws IOException, InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (true) {
      Optional<PublishedLeader> leader = publishedLeader(zooKeeper);
      for (JobManager jm : jobManagers) {
        if (leader.isPresent()
            && jm.restPort() == leader.get().restPort()
            && jm.process().alive()) {
          restPort = jm.restPort();
          rest = new Rest(restPort);
          return jm;
        }
      }
      if (System.nanoTime() > deadline) {
        throw new IOException(
            "W8: ZooKeeper published no live Flink JobManager as leader within "
                + timeout.toSeconds()
                + " s (it holds "
                + leader
                + "); see the jobmanager*.log files in "
                + dir);
      }
      Thread.sleep(20);
    }
  }

  /**
   * Where Flink's REST endpoint publishes its leader under {@code clusterId}: {@code
   * /flink/<id>/leader/rest_server/connection_info} (the JobManager process that leads leads every
   * component).
   */
  static String leaderZnode(String clusterId) {
    return "/flink/" + clusterId.replaceAll("^/+|/+$", "") + "/leader/rest_server/connection_info";
  }

  @Override
  public String leaderZnode() {
    return leaderZnode(clusterSettings.get("high-availability.cluster-id"));
  }

  /** Java-serialized: the address ({@code http://host:port}) as UTF, then the session's UUID. */
  @Override
  public int leaderRestPort(byte[] znodeData) throws IOException {
    String address;
    try (ObjectInputStream in = new ObjectInputStream(new ByteArrayInputStream(znodeData))) {
      address = in.readUTF();
    }
    Matcher port = PORT.matcher(address);
    if (!port.find()) {
      throw new IOException("W8: no REST port in Flink's leader znode: " + address);
    }
    return Integer.parseInt(port.group(1));
  }

  @Override
  public Rest rest() {
    return rest;
  }

  private JvmProcess start(String name, List<String> memory, String mainClass, List<String> args)
      throws IOException {
    List<String> jvm = new ArrayList<>(memory);
    jvm.add("-Dorg.slf4j.simpleLogger.defaultLogLevel=info");
    jvm.add("-Dorg.slf4j.simpleLogger.showDateTime=true");
    jvm.add("-Dorg.slf4j.simpleLogger.dateTimeFormat=HH:mm:ss.SSS");
    JvmProcess p = JvmProcess.start(name, dir, classpath, jvm, mainClass, args);
    processes.add(p);
    return p;
  }

  private int registered() throws IOException, InterruptedException {
    return rest.get("/taskmanagers").path("taskmanagers").size();
  }

  @Override
  public JvmProcess startTaskManager() throws IOException, InterruptedException {
    int before = registered();
    JvmProcess tm =
        start(
            "taskmanager-" + processes.size(),
            taskManagerJvm,
            "org.apache.flink.runtime.taskexecutor.TaskManagerRunner",
            taskManagerArgs);
    long deadline = System.nanoTime() + START_TIMEOUT.toNanos();
    while (registered() <= before) {
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
    Path jar = JobJar.write(dir.resolve("w8-job.jar"));
    StreamExecutionEnvironment env =
        StreamExecutionEnvironment.createRemoteEnvironment(
            "127.0.0.1", restPort, Configuration.fromMap(jobSettings), jar.toString());
    FlinkW8Job.build(env, records, markerDir, traceDir);
    JobClient client = env.executeAsync("W8");
    clients.add(client);
    return client.getJobID().toHexString();
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
    JsonNode history = rest.get("/jobs/" + jobId + "/exceptions").path("exceptionHistory");
    history
        .path("entries")
        .forEach(
            e ->
                failures.add(
                    new Failure(
                        e.path("timestamp").asLong(),
                        e.path("taskName").asText()
                            + ": "
                            + e.path("stacktrace").asText().lines().findFirst().orElse(""))));
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

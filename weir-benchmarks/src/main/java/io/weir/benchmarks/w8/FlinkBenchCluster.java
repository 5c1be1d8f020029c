package io.weir.benchmarks.w8;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
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
 * job graph and the job jar uploaded to {@code /jobs}).
 */
final class FlinkBenchCluster implements BenchCluster {
  private static final Pattern SPACES = Pattern.compile("\\s+");
  private static final Duration START_TIMEOUT = Duration.ofSeconds(120);

  private final Path dir;
  private final Path confDir;
  private final String classpath;
  private final Map<String, String> jobSettings;
  private final List<JvmProcess> processes = new ArrayList<>();
  private final Rest rest;
  private final int restPort;
  private final List<JobClient> clients = new ArrayList<>();
  private final List<String> taskManagerJvm;
  private final List<String> taskManagerArgs;

  FlinkBenchCluster(Path dir, Map<String, String> jobSettings, int slotsPerTaskManager)
      throws Exception {
    this.dir = dir;
    this.jobSettings = jobSettings;
    this.classpath = W8Classpaths.flink();
    this.confDir = Files.createDirectories(dir.resolve("flink-conf"));
    this.restPort = freePort();
    Map<String, String> conf = new LinkedHashMap<>();
    conf.put("jobmanager.rpc.address", "127.0.0.1");
    conf.put("jobmanager.rpc.port", Integer.toString(freePort()));
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

    JvmProcess jm =
        start(
            "jobmanager",
            List.of("-Xmx" + W8Run.JOB_MANAGER_HEAP),
            "org.apache.flink.runtime.entrypoint.StandaloneSessionClusterEntrypoint",
            List.of("--configDir", confDir.toString()));
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
  public String submit(long records, String markerDir) throws Exception {
    Path jar = JobJar.write(dir.resolve("w8-job.jar"));
    StreamExecutionEnvironment env =
        StreamExecutionEnvironment.createRemoteEnvironment(
            "127.0.0.1", restPort, Configuration.fromMap(jobSettings), jar.toString());
    FlinkW8Job.build(env, records, markerDir);
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

  private static int freePort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0)) {
      return socket.getLocalPort();
    }
  }
}

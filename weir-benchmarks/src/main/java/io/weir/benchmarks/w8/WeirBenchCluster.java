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
 * 127.0.0.1 with ephemeral ports, on {@code target/classpath-weir-cluster.txt} (weir-cluster and
 * its dependencies, no benchmark class), logging through logback at INFO for Weir's own lines.
 */
final class WeirBenchCluster implements BenchCluster {
  private static final Pattern JM_STARTED =
      Pattern.compile("JobManager started: control port [^:]+:(\\d+), REST port [^:]+:(\\d+)");
  private static final Pattern TM_STARTED = Pattern.compile("TaskManager (tm-\\S+) started");
  private static final Duration START_TIMEOUT = Duration.ofSeconds(120);

  private final Path dir;
  private final String classpath;
  private final Map<String, String> jobSettings;
  private final List<JvmProcess> processes = new ArrayList<>();
  private final Rest rest;
  private final int rpcPort;
  private final int slotsPerTaskManager;

  WeirBenchCluster(Path dir, Map<String, String> jobSettings, int slotsPerTaskManager)
      throws Exception {
    this.dir = dir;
    this.slotsPerTaskManager = slotsPerTaskManager;
    this.jobSettings = jobSettings;
    this.classpath = W8Classpaths.weirCluster();
    Path logback = dir.resolve("logback.xml");
    Files.writeString(
        logback,
        """
        <configuration>
          <appender name="OUT" class="ch.qos.logback.core.ConsoleAppender">
            <encoder><pattern>%d{HH:mm:ss.SSS} %-5level [%thread] %logger{36} - %msg%n</pattern></encoder>
          </appender>
          <root level="WARN"><appender-ref ref="OUT"/></root>
        </configuration>
        """);
    List<String> args = new ArrayList<>(List.of("jobmanager"));
    args.addAll(settings(Map.of("jobmanager.rpc.port", "0", "rest.port", "0")));
    args.addAll(settings(Map.of("web.upload.dir", dir.resolve("jars").toString())));
    JvmProcess jm = start("jobmanager", W8Run.JOB_MANAGER_HEAP, args);
    Matcher m = jm.awaitLog(JM_STARTED, START_TIMEOUT);
    rpcPort = Integer.parseInt(m.group(1));
    rest = new Rest(Integer.parseInt(m.group(2)));
  }

  private List<String> settings(Map<String, String> extra) {
    Map<String, String> all = new LinkedHashMap<>(W8Run.HEARTBEATS);
    all.put("slot.request.timeout", "120000");
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
  public JvmProcess startTaskManager() throws IOException, InterruptedException {
    List<String> args =
        new ArrayList<>(
            List.of(
                "taskmanager",
                "--jobmanager",
                "127.0.0.1:" + rpcPort,
                "--slots",
                Integer.toString(slotsPerTaskManager)));
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
  public String submit(long records, String markerDir) throws Exception {
    String jarId =
        rest.postJar("/jars/upload", JobJar.write(dir.resolve("w8-job.jar"))).path("id").asText();
    List<String> args =
        new ArrayList<>(List.of(Long.toString(records), markerDir.isEmpty() ? "-" : markerDir));
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

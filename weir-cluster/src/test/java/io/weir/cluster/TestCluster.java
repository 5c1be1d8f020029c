package io.weir.cluster;

import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import io.weir.cluster.client.ClusterClient;
import io.weir.cluster.rpc.HostPort;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.jar.Attributes;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.jar.Manifest;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * A JobManager and TaskManagers as real child JVMs on 127.0.0.1 with ephemeral ports, each logging
 * to its own file under the build's temp directory. The test job classes are not on the children's
 * classpath: they reach the cluster only in a jar uploaded through the REST API.
 */
final class TestCluster implements AutoCloseable {

  /** A child process and its log. */
  static final class Node {
    final Process process;
    final Path log;
    String id;

    /** What its status file said once it served (a TaskManager: once registered). */
    Map<String, String> status = Map.of();

    Node(Process process, Path log) {
      this.process = process;
      this.log = log;
    }

    String log() {
      try {
        return Files.readString(log);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }

    /**
     * Waits until the process has written its status file ({@code cluster.status-file}: a
     * JobManager once it serves, a TaskManager once registered) and returns what it holds.
     */
    Map<String, String> awaitStatus(Path file, Duration timeout) {
      return awaitWhileAlive(
          () -> {
            Map<String, String> status = StatusFile.read(file);
            return status.isEmpty() ? null : status;
          },
          timeout);
    }

    /** Waits for the first match of {@code pattern} in the log. */
    Matcher awaitLog(Pattern pattern, Duration timeout) {
      return awaitWhileAlive(
          () -> {
            Matcher m = pattern.matcher(log());
            return m.find() ? m : null;
          },
          timeout);
    }

    /** Polls {@code probe} until it finds something, failing at once if the process ends. */
    private <T> T awaitWhileAlive(java.util.concurrent.Callable<T> probe, Duration timeout) {
      java.util.concurrent.atomic.AtomicReference<T> found =
          new java.util.concurrent.atomic.AtomicReference<>();
      await()
          .atMost(timeout)
          .pollInterval(Duration.ofMillis(50))
          .until(
              () -> {
                T value = probe.call();
                if (value != null) {
                  found.set(value);
                  return true;
                }
                if (!process.isAlive()) {
                  throw new AssertionError(
                      "process ended with " + process.exitValue() + ":\n" + log());
                }
                return false;
              });
      return found.get();
    }
  }

  private static final AtomicInteger COUNTER = new AtomicInteger();

  final Path dir;
  final Map<String, String> settings;

  /** Thread-safe: a test may start a TaskManager in the background while it looks for hosts. */
  final List<Node> taskManagers = new java.util.concurrent.CopyOnWriteArrayList<>();

  Node jobManager;
  int rpcPort;
  int restPort;
  ClusterClient client;
  private final String secret;

  TestCluster(String name, Map<String, String> settings) throws IOException {
    this.dir =
        Files.createDirectories(
            Path.of(
                System.getProperty("java.io.tmpdir"), "cluster-" + name + "-" + System.nanoTime()));
    this.settings = settings;
    this.secret = settings.get(ClusterOptions.SECRET.key());
  }

  static String childClasspath() throws IOException {
    String testClasses = Path.of("target", "test-classes").toAbsolutePath().toString();
    String deps = Files.readString(Path.of("target", "test-classpath.txt")).strip();
    return Stream.concat(
            Stream.of(Path.of("target", "classes").toAbsolutePath().toString()),
            Arrays.stream(deps.split(java.io.File.pathSeparator)))
        .filter(p -> !p.equals(testClasses))
        .collect(Collectors.joining(java.io.File.pathSeparator));
  }

  Node start(String name, List<String> args) throws IOException {
    Path log = dir.resolve(name + "-" + COUNTER.incrementAndGet() + ".log");
    Path tmp = Files.createDirectories(dir.resolve("tmp-" + name));
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.add("-Xmx256m");
    command.add("-XX:+UseSerialGC");
    command.add("-XX:TieredStopAtLevel=1");
    command.add("-Djava.io.tmpdir=" + tmp);
    command.add(
        "-Dlogback.configurationFile="
            + Path.of("target", "test-classes", "logback-test.xml").toAbsolutePath());
    command.add("-cp");
    command.add(childClasspath());
    command.add(ClusterMain.class.getName());
    command.addAll(args);
    Process p =
        new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
    return new Node(p, log);
  }

  private List<String> settingArgs() {
    List<String> args = new ArrayList<>();
    settings.forEach(
        (k, v) -> {
          args.add("-D");
          args.add(k + "=" + v);
        });
    return args;
  }

  void startJobManager() throws IOException {
    JobManagerNode started = startAnotherJobManager();
    jobManager = started.node();
    rpcPort = started.rpcPort();
    restPort = started.restPort();
    client = started.client();
  }

  /** A JobManager process, its ports and a REST client of it. */
  record JobManagerNode(Node node, int rpcPort, int restPort, ClusterClient client) {}

  /**
   * Starts a JobManager with this cluster's settings on free ports and waits until it serves; it is
   * not this cluster's {@link #jobManager} (high availability runs several).
   */
  JobManagerNode startAnotherJobManager() throws IOException {
    return startAnotherJobManager(Map.of());
  }

  /** As {@link #startAnotherJobManager()}, with {@code overrides} over this cluster's settings. */
  JobManagerNode startAnotherJobManager(Map<String, String> overrides) throws IOException {
    Path status = statusFile("jobmanager");
    List<String> args = new ArrayList<>(List.of("jobmanager"));
    args.addAll(settingArgs());
    overrides.forEach((k, v) -> args.addAll(List.of("-D", k + "=" + v)));
    args.addAll(
        List.of(
            "-D", ClusterOptions.JM_PORT.key() + "=0",
            "-D", ClusterOptions.REST_PORT.key() + "=0",
            "-D", ClusterOptions.UPLOAD_DIR.key() + "=" + dir.resolve("jars"),
            "-D", ClusterOptions.STATUS_FILE.key() + "=" + status));
    Node node = start("jobmanager", args);
    Map<String, String> started = node.awaitStatus(status, Duration.ofSeconds(60));
    node.status = started;
    int rest = Integer.parseInt(started.get("rest.port"));
    return new JobManagerNode(
        node,
        Integer.parseInt(started.get("rpc.port")),
        rest,
        new ClusterClient(new HostPort("127.0.0.1", rest), secret));
  }

  /** A fresh path for a process's status file. */
  private Path statusFile(String name) {
    return dir.resolve(name + "-" + COUNTER.incrementAndGet() + ".status");
  }

  /** Starts a TaskManager and waits until the JobManager lists it. */
  Node startTaskManager(int slots) throws IOException {
    return startTaskManager(slots, Map.of());
  }

  /**
   * Starts {@code count} TaskManagers of {@code slots} each side by side (a JVM's start-up is most
   * of a TaskManager's) and waits until the JobManager lists them all.
   */
  List<Node> startTaskManagers(int count, int slots) throws IOException {
    List<Node> started = new ArrayList<>();
    List<Path> statuses = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      Path status = statusFile("taskmanager");
      Map<String, String> withStatus = new java.util.LinkedHashMap<>(settings);
      withStatus.put(ClusterOptions.STATUS_FILE.key(), status.toString());
      started.add(startTaskManagerAt("127.0.0.1:" + rpcPort, slots, withStatus));
      statuses.add(status);
    }
    for (int i = 0; i < count; i++) {
      Node tm = started.get(i);
      tm.status = tm.awaitStatus(statuses.get(i), Duration.ofSeconds(60));
      tm.id = tm.status.get("id");
      await()
          .atMost(Duration.ofSeconds(60))
          .pollInterval(Duration.ofMillis(100))
          .until(() -> taskManagerIds().contains(tm.id));
      taskManagers.add(tm);
    }
    return started;
  }

  /**
   * Kills the TaskManager that runs job {@code jobId} with SIGKILL, {@code kills} times, each once
   * the job runs again and completed two checkpoints since the kill before (the attempt made
   * progress); each victim's replacement starts in the background, so the next kill waits only for
   * the job to run again. Then opens {@code gate}, which lets the job's input end, so the job
   * cannot finish before its last kill, and waits for the replacements.
   */
  void killHostOfTimes(String jobId, int kills, Path gate) throws Exception {
    List<java.util.concurrent.CompletableFuture<Node>> replacements = new ArrayList<>();
    try {
      long seen = 0;
      for (int kill = 1; kill <= kills; kill++) {
        long before = seen;
        await()
            .atMost(Duration.ofSeconds(90))
            .pollInterval(Duration.ofMillis(100))
            .until(
                () ->
                    jobState(jobId).equals("RUNNING") && completedCheckpoints(jobId) > before + 1);
        seen = completedCheckpoints(jobId);
        Node victim = hostOf(jobId);
        victim.process.destroyForcibly().waitFor(); // SIGKILL
        taskManagers.remove(victim);
        replacements.add(startTaskManagerInTheBackground(1));
        await()
            .atMost(Duration.ofSeconds(60))
            .pollInterval(Duration.ofMillis(100))
            .until(() -> !taskManagerIds().contains(victim.id));
      }
      Files.createFile(gate);
    } finally {
      for (java.util.concurrent.CompletableFuture<Node> replacement : replacements) {
        replacement.get(90, java.util.concurrent.TimeUnit.SECONDS);
      }
    }
  }

  /**
   * As {@link #startTaskManager(int)}, on a thread of its own: done once the JobManager lists the
   * TaskManager (and so does {@link #taskManagers}).
   */
  java.util.concurrent.CompletableFuture<Node> startTaskManagerInTheBackground(int slots) {
    return java.util.concurrent.CompletableFuture.supplyAsync(
        () -> {
          try {
            return startTaskManager(slots);
          } catch (IOException e) {
            throw new UncheckedIOException(e);
          }
        },
        start -> new Thread(start, "taskmanager-start").start());
  }

  /** As {@link #startTaskManager(int)}, with {@code extra} settings of its own. */
  Node startTaskManager(int slots, Map<String, String> extra) throws IOException {
    return startTaskManager("127.0.0.1:" + rpcPort, slots, extra);
  }

  /**
   * As {@link #startTaskManager(int, Map)}, given {@code jobManager} as its {@code --jobmanager} (a
   * proxy in front of the JobManager, say).
   */
  Node startTaskManager(String jobManager, int slots, Map<String, String> extra)
      throws IOException {
    Path status = statusFile("taskmanager");
    Map<String, String> withStatus = new java.util.LinkedHashMap<>(settings);
    withStatus.putAll(extra);
    withStatus.put(ClusterOptions.STATUS_FILE.key(), status.toString());
    Node tm = startTaskManagerAt(jobManager, slots, withStatus);
    tm.status = tm.awaitStatus(status, Duration.ofSeconds(60));
    tm.id = tm.status.get("id");
    await()
        .atMost(Duration.ofSeconds(60))
        .pollInterval(Duration.ofMillis(100))
        .until(() -> taskManagerIds().contains(tm.id));
    taskManagers.add(tm);
    return tm;
  }

  /**
   * Starts a TaskManager of {@code slots} at {@code jobManager}, or, when null, at whichever
   * JobManager leads as ZooKeeper publishes it (high availability).
   */
  Node startTaskManagerAt(String jobManager, int slots, Map<String, String> settings)
      throws IOException {
    List<String> args = new ArrayList<>(List.of("taskmanager", "--slots", "" + slots));
    if (jobManager != null) {
      args.addAll(List.of("--jobmanager", jobManager));
    }
    settings.forEach(
        (k, v) -> {
          args.add("-D");
          args.add(k + "=" + v);
        });
    return start("taskmanager", args);
  }

  List<String> taskManagerIds() throws Exception {
    List<String> ids = new ArrayList<>();
    client.get("/taskmanagers").path("taskmanagers").forEach(t -> ids.add(t.path("id").asText()));
    return ids;
  }

  JsonNode taskManager(String id) throws Exception {
    for (JsonNode t : client.get("/taskmanagers").path("taskmanagers")) {
      if (t.path("id").asText().equals(id)) {
        return t;
      }
    }
    return null;
  }

  /** The TaskManager process that runs tasks of {@code jobId} now, per the JobManager. */
  Node hostOf(String jobId) throws Exception {
    Node[] host = new Node[1];
    await()
        .atMost(Duration.ofSeconds(60))
        .pollInterval(Duration.ofMillis(100))
        .until(
            () -> {
              for (Node tm : taskManagers) {
                JsonNode status = taskManager(tm.id);
                if (status != null && status.path("tasks").toString().contains(jobId)) {
                  host[0] = tm;
                  return true;
                }
              }
              return false;
            });
    return host[0];
  }

  /** The checkpoints of {@code jobId} completed so far, per the REST API. */
  long completedCheckpoints(String jobId) throws Exception {
    return client.get("/jobs/" + jobId + "/checkpoints").path("counts").path("completed").asLong();
  }

  /**
   * The arguments of the test jar's {@code io.weir.testjobs.KeyedCountJob}: {@code n} numbers over
   * 10 keys into {@code out}, checkpoints under {@code checkpoints}, a millisecond's sleep every
   * {@code every} records.
   */
  static List<String> keyedCountArgs(Path out, long n, Path checkpoints, int every) {
    return List.of(
        out.toString(),
        String.valueOf(n),
        "10",
        checkpoints.toUri().toString(),
        String.valueOf(every));
  }

  /**
   * Runs {@code io.weir.testjobs.KeyedCountJob} of the jar {@code jarId} at parallelism 2 (see
   * {@link #keyedCountArgs}), with checkpoints under {@code checkpoints} of this cluster's
   * directory.
   */
  String runKeyedCount(
      String jarId, Path out, long n, String checkpoints, int every, Map<String, String> settings)
      throws Exception {
    return client.run(
        jarId,
        "io.weir.testjobs.KeyedCountJob",
        keyedCountArgs(out, n, dir.resolve(checkpoints), every),
        2,
        settings);
  }

  /**
   * Waits until the job runs with at least two checkpoints completed after {@code before} (so it
   * made progress since), and returns the count then.
   */
  long awaitRunningWithCheckpointsAfter(String jobId, long before) throws Exception {
    await()
        .atMost(Duration.ofSeconds(90))
        .pollInterval(Duration.ofMillis(100))
        .until(() -> jobState(jobId).equals("RUNNING") && completedCheckpoints(jobId) > before + 1);
    return completedCheckpoints(jobId);
  }

  /** Waits until the job ends, however it ends, and returns its details then. */
  JsonNode awaitEnded(String jobId) throws Exception {
    await()
        .atMost(Duration.ofSeconds(180))
        .pollInterval(Duration.ofMillis(200))
        .until(() -> List.of("FINISHED", "FAILED", "CANCELED").contains(jobState(jobId)));
    return client.get("/jobs/" + jobId);
  }

  /** The messages of the job's exception history, newest first. */
  List<String> exceptionMessages(String jobId) throws Exception {
    List<String> messages = new ArrayList<>();
    client
        .get("/jobs/" + jobId + "/exceptions")
        .path("exceptionHistory")
        .path("entries")
        .forEach(e -> messages.add(e.path("message").asText()));
    return messages;
  }

  String jobState(String jobId) throws Exception {
    return client.get("/jobs/" + jobId).path("state").asText();
  }

  /** A jar of the test job classes, with {@code mainClass} in its manifest (or none if null). */
  static Path testJobJar(Path target, String mainClass) throws IOException {
    return jarOfTestClasses(target, mainClass, List.of("io/weir/testjobs"));
  }

  /**
   * A jar of the files and directories {@code paths} of the test classes (classes and resources),
   * with {@code mainClass} in its manifest (or none if null). The children's class path has none of
   * the test classes: what the jar holds, a TaskManager sees only in the job's class loader.
   */
  static Path jarOfTestClasses(Path target, String mainClass, List<String> paths)
      throws IOException {
    Path classes = Path.of("target", "test-classes");
    Manifest manifest = new Manifest();
    manifest.getMainAttributes().put(Attributes.Name.MANIFEST_VERSION, "1.0");
    if (mainClass != null) {
      manifest.getMainAttributes().put(Attributes.Name.MAIN_CLASS, mainClass);
    }
    try (OutputStream file = Files.newOutputStream(target);
        JarOutputStream jar = new JarOutputStream(file, manifest)) {
      for (String path : paths) {
        try (Stream<Path> files = Files.walk(classes.resolve(path))) {
          for (Path p : files.filter(Files::isRegularFile).toList()) {
            jar.putNextEntry(new JarEntry(classes.relativize(p).toString().replace('\\', '/')));
            jar.write(Files.readAllBytes(p));
            jar.closeEntry();
          }
        }
      }
    }
    return target;
  }

  /** The lines the exactly-once file sink committed in {@code dir}: its {@code part-} files. */
  static List<String> committedLines(Path dir) throws IOException {
    try (Stream<Path> files = Files.list(dir)) {
      List<String> lines = new ArrayList<>();
      for (Path p : files.filter(p -> p.getFileName().toString().startsWith("part-")).toList()) {
        lines.addAll(Files.readAllLines(p));
      }
      return lines;
    }
  }

  /**
   * The output of {@code io.weir.testjobs.KeyedCountJob} over {@code n} numbers and 10 keys is
   * exact: every key's counts 1..n/10, each line once.
   */
  static void assertKeyedCountExactlyOnce(Path out, long n) throws IOException {
    Map<String, Integer> lines = new java.util.HashMap<>();
    for (String line : committedLines(out)) {
      lines.merge(line, 1, Integer::sum);
    }
    Map<String, Integer> expected = new java.util.HashMap<>();
    for (long key = 0; key < 10; key++) {
      for (long c = 1; c <= n / 10; c++) {
        expected.put(key + "," + c, 1);
      }
    }
    org.assertj.core.api.Assertions.assertThat(lines).hasSameSizeAs(expected);
    org.assertj.core.api.Assertions.assertThat(lines).isEqualTo(expected);
  }

  /** Sends {@code signal} ({@code KILL}, {@code STOP}, {@code CONT}) to {@code node}'s process. */
  static void signal(String signal, Node node) throws Exception {
    Process kill =
        new ProcessBuilder("kill", "-" + signal, String.valueOf(node.process.pid()))
            .inheritIO()
            .start();
    org.assertj.core.api.Assertions.assertThat(kill.waitFor()).isZero();
  }

  @Override
  public void close() {
    for (Node tm : taskManagers) {
      tm.process.destroyForcibly();
    }
    if (jobManager != null) {
      jobManager.process.destroyForcibly();
    }
    for (Node tm : taskManagers) {
      waitFor(tm.process);
    }
    if (jobManager != null) {
      waitFor(jobManager.process);
    }
  }

  private static void waitFor(Process p) {
    try {
      p.waitFor();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}

package io.weir.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.weir.cluster.StatusFile;
import io.weir.cluster.client.ClusterClient;
import io.weir.cluster.rpc.HostPort;
import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.jar.Attributes;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.jar.Manifest;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@code weir run -s}, {@code weir savepoint} and {@code weir stop [--drain]} end to end against a
 * cluster of real processes, checking output and exit codes: a savepoint, a stop and a run on the
 * embedded cluster through the real {@code ./weir} launcher in child processes, the other commands
 * through the CLI's entry point in this JVM ({@link Cli#runCapturingSystemStreams}).
 */
@Timeout(300)
class SavepointCommandsIT {

  private static Path dir;
  private static String jobManager;
  private static ClusterClient client;
  private static Path jar;
  private static final List<ProcessHandle> started = new ArrayList<>();

  @BeforeAll
  static void startCluster() throws Exception {
    dir = Files.createTempDirectory("weir-savepoint-cli");
    PrintStream original = System.out;
    ByteArrayOutputStream captured = new ByteArrayOutputStream();
    int exit;
    try {
      System.setOut(new PrintStream(captured, true, StandardCharsets.UTF_8));
      exit =
          WeirCli.commandLine()
              .execute(
                  "cluster",
                  "start",
                  "--taskmanagers",
                  "1",
                  "--slots",
                  "2",
                  "--dir",
                  dir.toString(),
                  "-D",
                  "jobmanager.rpc.port=0",
                  "-D",
                  "rest.port=0",
                  // Job defaults, as in a Flink cluster's configuration (with Flink's older key).
                  "-D",
                  "state.checkpoints.dir=" + dir.resolve("cluster-checkpoints").toUri(),
                  "--jvm-option=-Xmx256m");
    } finally {
      System.setOut(original);
    }
    assertThat(exit).as(captured.toString(StandardCharsets.UTF_8)).isZero();
    for (String name : List.of("jobmanager", "taskmanager-1")) {
      long pid = Long.parseLong(Files.readString(dir.resolve(name + ".pid")).strip());
      started.add(ProcessHandle.of(pid).orElseThrow());
    }
    jobManager = StatusFile.read(dir.resolve("jobmanager.status")).get("rest.address");
    client = new ClusterClient(HostPort.parse(jobManager, "test"), null);
    jar = testJobJar(dir.resolve("job.jar"));
  }

  @AfterAll
  static void stopCluster() {
    WeirCli.commandLine().execute("cluster", "stop", "--dir", dir.toString());
    started.forEach(ProcessHandle::destroyForcibly);
  }

  /** A jar of the CLI's test jobs. */
  private static Path testJobJar(Path target) throws Exception {
    Path classes = Path.of("target", "test-classes");
    Manifest manifest = new Manifest();
    manifest.getMainAttributes().put(Attributes.Name.MANIFEST_VERSION, "1.0");
    try (OutputStream file = Files.newOutputStream(target);
        JarOutputStream out = new JarOutputStream(file, manifest);
        Stream<Path> files = Files.walk(classes.resolve("io/weir/cli/testjobs"))) {
      for (Path p : files.filter(Files::isRegularFile).toList()) {
        out.putNextEntry(new JarEntry(classes.relativize(p).toString().replace('\\', '/')));
        out.write(Files.readAllBytes(p));
        out.closeEntry();
      }
    }
    return target;
  }

  /**
   * {@code ./weir COMMAND --jobmanager ADDRESS ARGS}: the address right after the command, since
   * everything after a jar is the job's; {@code run} detached, returning once submitted.
   */
  private static WeirProcess.Result weir(String... args) throws Exception {
    return WeirProcess.run(dir, againstTheCluster(args));
  }

  /**
   * As {@link #weir}, through the CLI's entry point in this JVM: the launcher's process runs where
   * it is what a test checks (a savepoint and a stop that succeed, the embedded cluster's run); the
   * other commands spare a JVM start each.
   */
  private static WeirProcess.Result cli(String... args) {
    Cli.Result result = Cli.runCapturingSystemStreams(againstTheCluster(args));
    return new WeirProcess.Result(result.exitCode(), result.out(), result.err());
  }

  private static String[] againstTheCluster(String... args) {
    List<String> all = new ArrayList<>(List.of(args));
    all.add(1, "--jobmanager");
    all.add(2, jobManager);
    if (args[0].equals("run")) {
      all.add(3, "-d");
    }
    return all.toArray(String[]::new);
  }

  /** Runs the test job through {@code weir run}; returns its id once it runs. */
  private static String run(String... extra) throws Exception {
    List<String> args = new ArrayList<>(List.of("run", "-p", "2"));
    args.addAll(List.of(extra));
    args.addAll(
        List.of(
            "-c",
            "io.weir.cli.testjobs.ThrottledCountJob",
            jar.toString(),
            dir.resolve("checkpoints").toUri().toString()));
    WeirProcess.Result result = cli(args.toArray(String[]::new));
    assertThat(result.exitCode()).as(result.toString()).isZero();
    Matcher id = Pattern.compile("JobID ([0-9a-f]{32})").matcher(result.out());
    assertThat(id.find()).as(result.toString()).isTrue();
    String jobId = id.group(1);
    await()
        .atMost(Duration.ofSeconds(60))
        .until(() -> client.get("/jobs/" + jobId).path("state").asText().equals("RUNNING"));
    return jobId;
  }

  private static Path savepointPath(WeirProcess.Result result) {
    Matcher path = Pattern.compile("Savepoint completed\\. Path: (\\S+)").matcher(result.out());
    assertThat(path.find()).as(result.toString()).isTrue();
    return Path.of(URI.create(path.group(1)));
  }

  @Test
  void savepointThenStopThenResumeAndStopWithDrain() throws Exception {
    String jobId = run();

    WeirProcess.Result noDir = cli("savepoint", jobId);
    assertThat(noDir.exitCode()).as(noDir.toString()).isEqualTo(1);
    assertThat(noDir.err()).contains("execution.checkpointing.savepoint-dir").contains(jobId);

    WeirProcess.Result savepoint = weir("savepoint", jobId, dir.resolve("savepoints").toString());
    assertThat(savepoint.exitCode()).as(savepoint.toString()).isZero();
    Path first = savepointPath(savepoint);
    assertThat(first.getParent()).isEqualTo(dir.resolve("savepoints"));
    assertThat(first.resolve("_metadata")).exists();
    assertThat(client.get("/jobs/" + jobId).path("state").asText()).isEqualTo("RUNNING");

    WeirProcess.Result stop = weir("stop", jobId, dir.resolve("stopped").toString());
    assertThat(stop.exitCode()).as(stop.toString()).isZero();
    Path stopped = savepointPath(stop);
    assertThat(stopped.resolve("_metadata")).exists();
    assertThat(client.get("/jobs/" + jobId).path("state").asText()).isEqualTo("FINISHED");

    String resumed = run("-s", stopped.toString());
    // As Flink's fingers type it: flink stop -d -p DIR JOB.
    WeirProcess.Result drain = cli("stop", "-d", "-p", dir.resolve("drained").toString(), resumed);
    assertThat(drain.exitCode()).as(drain.toString()).isZero();
    assertThat(savepointPath(drain).resolve("_metadata")).exists();
    assertThat(savepointPath(drain).getParent()).isEqualTo(dir.resolve("drained"));
    assertThat(client.get("/jobs/" + resumed).path("state").asText()).isEqualTo("FINISHED");
    assertThat(
            client
                .get("/jobs/" + resumed)
                .path("metrics")
                .path("job.lastRestoredCheckpoint")
                .asLong())
        .as("the resumed job started from the stop's savepoint")
        .isGreaterThan(0);
  }

  @Test
  void runWithoutAJobManagerRunsOnTheEmbeddedClusterWhoseRestApiTheOtherCommandsReach()
      throws Exception {
    WeirProcess.Started run =
        WeirProcess.start(
            dir,
            "run",
            "-p",
            "2",
            "-c",
            "io.weir.cli.testjobs.ThrottledCountJob",
            jar.toString(),
            dir.resolve("embedded-checkpoints").toUri().toString());
    try {
      Pattern announced =
          Pattern.compile("JobID ([0-9a-f]{32})[\\s\\S]*REST API at (127\\.0\\.0\\.1:\\d+)");
      Matcher[] found = new Matcher[1];
      await()
          .atMost(Duration.ofSeconds(120))
          .pollInterval(Duration.ofMillis(100))
          .until(
              () -> {
                Matcher m = announced.matcher(run.out());
                if (m.find()) {
                  found[0] = m;
                  return true;
                }
                assertThat(run.process().isAlive()).as(run.out() + run.err()).isTrue();
                return false;
              });
      String jobId = found[0].group(1);
      String address = found[0].group(2);
      ClusterClient embedded = new ClusterClient(HostPort.parse(address, "test"), null);
      await()
          .atMost(Duration.ofSeconds(60))
          .until(() -> embedded.get("/jobs/" + jobId).path("state").asText().equals("RUNNING"));
      Cli.Result list = Cli.runCapturingSystemStreams("list", "-m", address);
      assertThat(list.exitCode()).as(list.toString()).isZero();
      assertThat(list.out()).contains(jobId).contains("RUNNING");
      WeirProcess.Result stop =
          WeirProcess.run(
              dir, "stop", "-m", address, jobId, dir.resolve("embedded-stop").toString());
      assertThat(stop.exitCode()).as(stop.toString()).isZero();
      assertThat(savepointPath(stop).resolve("_metadata")).exists();
      assertThat(run.process().waitFor(60, java.util.concurrent.TimeUnit.SECONDS)).isTrue();
      assertThat(run.process().exitValue()).as(run.out() + run.err()).isZero();
      assertThat(run.out()).contains("Job " + jobId + " finished.");
    } finally {
      run.process().destroyForcibly();
    }
  }

  @Test
  void flinksDeprecatedCheckpointDirectoryKeyGivenWithDashDIsUsedAndWarnedAbout() throws Exception {
    Path checkpoints = dir.resolve("deprecated-key-checkpoints");
    WeirProcess.Result result =
        cli(
            "run",
            "-p",
            "2",
            "-D",
            "state.checkpoints.dir=" + checkpoints.toUri(),
            "-c",
            "io.weir.cli.testjobs.ThrottledCountJob",
            jar.toString());
    assertThat(result.exitCode()).as(result.toString()).isZero();
    String warning =
        "Configuration key 'state.checkpoints.dir' is deprecated: use"
            + " 'execution.checkpointing.dir' instead";
    assertThat(result.err()).contains("weir run: warning: " + warning);
    Matcher id = Pattern.compile("JobID ([0-9a-f]{32})").matcher(result.out());
    assertThat(id.find()).as(result.toString()).isTrue();
    String jobId = id.group(1);
    try {
      awaitCompletedCheckpoint(checkpoints.resolve(jobId));
      assertThat(Files.readString(dir.resolve("log/jobmanager.log")))
          .contains("Job 'throttled-count': " + warning);
    } finally {
      WeirProcess.Result cancel = cli("cancel", jobId);
      assertThat(cancel.exitCode()).as(cancel.toString()).isZero();
    }
  }

  @Test
  void aJobWithoutStorageSettingsCheckpointsWhereTheClustersConfigurationSays() throws Exception {
    WeirProcess.Result result =
        cli("run", "-p", "2", "-c", "io.weir.cli.testjobs.ThrottledCountJob", jar.toString());
    assertThat(result.exitCode()).as(result.toString()).isZero();
    Matcher id = Pattern.compile("JobID ([0-9a-f]{32})").matcher(result.out());
    assertThat(id.find()).as(result.toString()).isTrue();
    String jobId = id.group(1);
    try {
      awaitCompletedCheckpoint(dir.resolve("cluster-checkpoints").resolve(jobId));
    } finally {
      WeirProcess.Result cancel = cli("cancel", jobId);
      assertThat(cancel.exitCode()).as(cancel.toString()).isZero();
    }
  }

  private static void awaitCompletedCheckpoint(Path jobDir) {
    await()
        .atMost(Duration.ofSeconds(60))
        .ignoreExceptions()
        .until(
            () -> {
              try (Stream<Path> chk = Files.list(jobDir)) {
                return chk.anyMatch(
                    p ->
                        p.getFileName().toString().startsWith("chk-")
                            && Files.exists(p.resolve("_metadata")));
              }
            });
  }

  @Test
  void aSavepointOfAnUnknownJobFailsNamingIt() throws Exception {
    String unknown = "0123456789abcdef0123456789abcdef";
    WeirProcess.Result result = cli("savepoint", unknown, dir.resolve("savepoints").toString());
    assertThat(result.exitCode()).as(result.toString()).isEqualTo(1);
    assertThat(result.err()).contains(unknown);
    WeirProcess.Result stop = cli("stop", unknown);
    assertThat(stop.exitCode()).as(stop.toString()).isEqualTo(1);
    assertThat(stop.err()).contains(unknown);
  }

  @Test
  void aConfigFileWithAnUnknownKeyIsRefusedNamingTheNearestKnownOne() throws Exception {
    Path config = dir.resolve("misspelled.yaml");
    Files.writeString(
        config, "execution:\n  checkpointing:\n    savepoint-dirr: /tmp/savepoints\n");
    WeirProcess.Result result =
        cli(
            "run",
            "--config",
            config.toString(),
            "-c",
            "io.weir.cli.testjobs.ThrottledCountJob",
            jar.toString(),
            dir.resolve("checkpoints").toUri().toString());
    assertThat(result.exitCode()).as(result.toString()).isEqualTo(1);
    assertThat(result.err())
        .contains("execution.checkpointing.savepoint-dirr")
        .contains("did you mean 'execution.checkpointing.savepoint-dir'");

    Path malformed = dir.resolve("malformed.yaml");
    Files.writeString(malformed, "execution.checkpointing.interval 1 s\n");
    WeirProcess.Result bad =
        cli(
            "run",
            "--config",
            malformed.toString(),
            "-c",
            "io.weir.cli.testjobs.ThrottledCountJob",
            jar.toString(),
            dir.resolve("checkpoints").toUri().toString());
    assertThat(bad.exitCode()).as(bad.toString()).isEqualTo(1);
    assertThat(bad.err()).contains(malformed.toString());
  }

  @Test
  void aResumeFromAPathThatIsNoSavepointFailsNamingIt() throws Exception {
    Path nothing = dir.resolve("no-such-savepoint");
    List<String> args =
        List.of(
            "run",
            "-s",
            nothing.toString(),
            "-c",
            "io.weir.cli.testjobs.ThrottledCountJob",
            jar.toString(),
            dir.resolve("checkpoints").toUri().toString());
    WeirProcess.Result result = cli(args.toArray(String[]::new));
    assertThat(result.exitCode()).as(result.toString()).isEqualTo(1);
    assertThat(result.err()).contains(nothing.toString()).contains("does not exist");
  }
}

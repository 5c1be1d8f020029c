package io.weir.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import io.weir.cluster.StatusFile;
import io.weir.cluster.client.ClusterClient;
import io.weir.cluster.rest.messages.RestJson;
import io.weir.cluster.rpc.HostPort;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The command line as a Flink user types it, end to end, against one cluster of real processes (a
 * JobManager, one TaskManager of two slots) shared by the tests, which each cancel what they start.
 * Checks output, exit codes and what the cluster then holds. Where the process is what is under
 * test (its exit code, its logging, what an attached run prints while its job fails or waits) the
 * real {@code ./weir} launcher runs in a child process; every other command runs through the CLI's
 * entry point in this JVM ({@link Cli#runCapturingSystemStreams}), which spares a JVM start per
 * command (this class took 125 s with a process for each).
 */
@Timeout(300)
class FlinkCommandLineIT {

  private static final String COUNT_JOB = "io.weir.cli.testjobs.ThrottledCountJob";
  private static final String FAILING_JOB = "com.example.weirtest.FailingJob";

  /** A frame of the user's code in {@link com.example.weirtest.FailingJob}'s failure. */
  private static final String USER_FRAME = "at com.example.weirtest.FailingJob$Parse.map(";

  private static final Pattern JOB_ID = Pattern.compile("JobID ([0-9a-f]{32})");

  private static Path dir;
  private static String jobManager;
  private static ClusterClient client;
  private static Path jar;
  private static Path flinkJar;
  private static final List<ProcessHandle> started = new ArrayList<>();

  @BeforeAll
  static void startCluster() throws Exception {
    dir = Files.createTempDirectory("weir-flink-cli");
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
    jar = TestJars.jobJar(dir.resolve("jobs.jar"), null);
    flinkJar = TestJars.flinkJobJar(dir.resolve("flink-wordcount.jar"));
  }

  @AfterAll
  static void stopCluster() {
    WeirCli.commandLine().execute("cluster", "stop", "--dir", dir.toString());
    started.forEach(ProcessHandle::destroyForcibly);
  }

  /** {@code ./weir COMMAND -m JOBMANAGER ARGS...}. */
  private static WeirProcess.Result weir(String command, String... args) throws Exception {
    List<String> all = new ArrayList<>(List.of(command, "-m", jobManager));
    all.addAll(List.of(args));
    return WeirProcess.run(dir, all.toArray(String[]::new));
  }

  /** {@code ./weir ARGS...} with no JobManager given. */
  private static WeirProcess.Result local(String... args) throws Exception {
    return WeirProcess.run(dir, args);
  }

  /** {@code weir COMMAND -m JOBMANAGER ARGS...} through the CLI's entry point in this JVM. */
  private static WeirProcess.Result cli(String command, String... args) {
    List<String> all = new ArrayList<>(List.of(command, "-m", jobManager));
    all.addAll(List.of(args));
    return cliLocal(all.toArray(String[]::new));
  }

  /** {@code weir ARGS...} with no JobManager given, through the CLI's entry point in this JVM. */
  private static WeirProcess.Result cliLocal(String... args) {
    Cli.Result result = Cli.runCapturingSystemStreams(args);
    return new WeirProcess.Result(result.exitCode(), result.out(), result.err());
  }

  /**
   * Submits the counting job detached, checkpointing into {@code checkpoints}; returns its id once
   * it runs.
   */
  private static String runCountJob(Path checkpoints, String... options) throws Exception {
    List<String> args = new ArrayList<>(List.of("-d", "-p", "2"));
    args.addAll(List.of(options));
    args.addAll(List.of("-c", COUNT_JOB, jar.toString(), checkpoints.toUri().toString()));
    WeirProcess.Result result = cli("run", args.toArray(String[]::new));
    assertThat(result.exitCode()).as(result.toString()).isZero();
    String jobId = jobId(result);
    await().atMost(Duration.ofSeconds(60)).until(() -> state(jobId).equals("RUNNING"));
    return jobId;
  }

  private static String jobId(WeirProcess.Result result) {
    Matcher id = JOB_ID.matcher(result.out());
    assertThat(id.find()).as(result.toString()).isTrue();
    return id.group(1);
  }

  private static String state(String jobId) throws Exception {
    return client.get("/jobs/" + jobId).path("state").asText();
  }

  private static void cancel(String jobId) throws Exception {
    WeirProcess.Result cancel = cli("cancel", jobId);
    assertThat(cancel.exitCode()).as(cancel.toString()).isZero();
    await().atMost(Duration.ofSeconds(60)).until(() -> state(jobId).equals("CANCELED"));
  }

  private static long count(String text, String fragment) {
    return Pattern.compile(Pattern.quote(fragment)).matcher(text).results().count();
  }

  @Test
  void aFailingJobsUserFramesAreInRunsOutputTheRestHistoryAndTheTaskManagerLog() throws Exception {
    // Attached, as flink run: it waits for the job's end. --input goes to the job's main.
    WeirProcess.Result run =
        weir("run", "-c", FAILING_JOB, jar.toString(), "--input", "orders.csv");
    assertThat(run.exitCode()).as(run.toString()).isEqualTo(1);
    String jobId = jobId(run);
    assertThat(run.err())
        .contains("weir run: job " + jobId + " ('failing-job') failed")
        .contains("Cannot parse record 3 of orders.csv")
        .contains("Caused by: java.lang.NumberFormatException")
        .contains(USER_FRAME)
        .contains("at com.example.weirtest.FailingJob.parse(")
        .contains("--verbose")
        .doesNotContain("at io.weir.")
        .doesNotContain("at java.");
    // The user's frames come first: before anything else of the trace.
    assertThat(run.err().indexOf(USER_FRAME)).isLessThan(run.err().indexOf("(run with --verbose"));

    JsonNode exceptions = client.get("/jobs/" + jobId + "/exceptions");
    assertThat(exceptions.path("root-exception").asText()).contains(USER_FRAME);
    assertThat(exceptions.path("timestamp").asLong()).isPositive();
    assertThat(exceptions.path("all-exceptions").get(0).path("exception").asText())
        .contains(USER_FRAME);
    JsonNode entry = exceptions.path("exceptionHistory").path("entries").get(0);
    assertThat(entry.path("stacktrace").asText())
        .contains("Cannot parse record 3 of orders.csv")
        .contains("Caused by: java.lang.NumberFormatException")
        .contains(USER_FRAME);
    assertThat(entry.path("exceptionName").asText()).isNotBlank();
    assertThat(entry.path("taskName").asText()).isNotBlank();
    assertThat(entry.path("message").asText()).contains("Cannot parse record 3");

    // Logged once, with its frames, by the TaskManager that ran the task.
    String taskManagerLog = Files.readString(dir.resolve("log/taskmanager-1.log"));
    assertThat(taskManagerLog).contains(USER_FRAME);
    assertThat(count(taskManagerLog, "at com.example.weirtest.FailingJob.parse(")).isEqualTo(1);
    // Once: the JobManager, which keeps the trace for REST, does not log a second copy.
    assertThat(Files.readString(dir.resolve("log/jobmanager.log")))
        .contains(jobId)
        .doesNotContain(USER_FRAME)
        .doesNotContain("at com.example.weirtest.FailingJob.parse(");

    // --verbose: the whole trace, the engine's frames too.
    WeirProcess.Result verbose =
        cli("run", "--verbose", "-c", FAILING_JOB, jar.toString(), "--input", "orders.csv");
    assertThat(verbose.exitCode()).as(verbose.toString()).isEqualTo(1);
    assertThat(verbose.err()).contains(USER_FRAME).contains("at io.weir.");
  }

  @Test
  void theExamplesJarRunsWithoutAClassAndPrintGoesToTheTaskManagersOutFileNotItsLog()
      throws Exception {
    Path examplesJar =
        Path.of(
            io.weir.examples.Examples.class
                .getProtectionDomain()
                .getCodeSource()
                .getLocation()
                .toURI());
    assertThat(examplesJar.toString())
        .as("weir-examples as a jar: run this IT with 'verify', which packages weir-examples")
        .endsWith(".jar");

    // No -c: the jar's Main-Class, the examples' launcher, picks the example by name.
    WeirProcess.Result run = weir("run", examplesJar.toString(), "WindowedPageViews");
    assertThat(run.exitCode()).as(run.toString()).isZero();
    assertThat(run.out()).contains("Job " + jobId(run) + " finished.");

    // As Flink's: print() writes to the TaskManager's standard output, log/taskmanager-N.out.
    Path out = dir.resolve("log/taskmanager-1.out");
    assertThat(Files.readString(out))
        .contains("(/home,[0s,10s),3)")
        .contains("(/home,[0s,10s),4)")
        .contains("(/home,[30s,40s),1)")
        .contains("too late: PageView[timestamp=4000, page=/cart]");
    assertThat(Files.readString(dir.resolve("log/taskmanager-1.log")))
        .doesNotContain("[0s,10s)")
        .doesNotContain("too late:");
    assertThat(run.out()).doesNotContain("[0s,10s)");
  }

  @Test
  void runIsAttachedAsFlinksAndPassesEverythingAfterTheJarToTheJob() throws Exception {
    // -p after the jar is the job's (an unknown argument it ignores), not weir run's option.
    WeirProcess.Result run =
        cli("run", "-c", FAILING_JOB, jar.toString(), "--records", "3", "-p", "9");
    assertThat(run.exitCode()).as(run.toString()).isZero();
    String jobId = jobId(run);
    assertThat(run.out()).contains("Job " + jobId + " finished.");
    assertThat(state(jobId)).isEqualTo("FINISHED");
    for (JsonNode vertex : client.get("/jobs/" + jobId).path("vertices")) {
      assertThat(vertex.path("parallelism").asInt()).isEqualTo(1);
    }
  }

  @Test
  void aFailingJobOnTheLocalSessionClusterPrintsTheUsersFrames() throws Exception {
    WeirProcess.Result run = local("run", "-c", FAILING_JOB, jar.toString(), "--input", "x.csv");
    assertThat(run.exitCode()).as(run.toString()).isEqualTo(1);
    assertThat(run.err())
        .contains("failed")
        .contains("Cannot parse record 3 of x.csv")
        .contains(USER_FRAME)
        .doesNotContain("Cannot register with the JobManager");
    // Logged once by the engine in this process (WARN, to standard error), printed once more.
    assertThat(count(run.err(), "Caused by: java.lang.NumberFormatException")).isEqualTo(2);
  }

  @Test
  void infoPrintsThePlanAsJsonWithoutRunningTheJob() throws Exception {
    int jobsBefore = client.jobs().size();
    WeirProcess.Result info =
        local("info", "-p", "2", "-c", COUNT_JOB, jar.toString(), dir.toUri().toString());
    assertThat(info.exitCode()).as(info.toString()).isZero();
    JsonNode plan = RestJson.MAPPER.readTree(info.out());
    JsonNode nodes = plan.path("nodes");
    assertThat(nodes.size()).as(info.out()).isGreaterThanOrEqualTo(4);
    assertThat(nodes.get(0).path("pact").asText()).isEqualTo("Data Source");
    assertThat(nodes.get(nodes.size() - 1).path("pact").asText()).isEqualTo("Data Sink");
    List<String> strategies = new ArrayList<>();
    for (JsonNode node : nodes) {
      assertThat(node.path("id").isInt()).isTrue();
      assertThat(node.path("type").asText()).isNotBlank();
      assertThat(node.path("contents").asText()).isNotBlank();
      assertThat(node.path("parallelism").asInt()).isEqualTo(2);
      node.path("predecessors").forEach(p -> strategies.add(p.path("ship_strategy").asText()));
    }
    assertThat(strategies).contains("HASH");
    assertThat(info.err()).doesNotContain("local session cluster").doesNotContain("JobID");
    assertThat(client.jobs()).hasSize(jobsBefore);

    WeirProcess.Result flink = cliLocal("info", flinkJar.toString());
    assertThat(flink.exitCode()).as(flink.toString()).isEqualTo(1);
    assertThat(flink.err()).contains(flinkJar + ": this job was compiled against Flink's API");
  }

  @Test
  void checkpointTriggersOneAndSaysWhyItCannot() throws Exception {
    String jobId = runCountJob(dir.resolve("checkpoints"));
    try {
      WeirProcess.Result checkpoint = cli("checkpoint", jobId);
      assertThat(checkpoint.exitCode()).as(checkpoint.toString()).isZero();
      Matcher id =
          Pattern.compile("Checkpoint\\((\\d+)\\) for job " + jobId + " completed\\.")
              .matcher(checkpoint.out());
      assertThat(id.find()).as(checkpoint.toString()).isTrue();
      long checkpointId = Long.parseLong(id.group(1));
      boolean found = false;
      for (JsonNode c : client.get("/jobs/" + jobId + "/checkpoints").path("history")) {
        if (c.path("id").asLong() == checkpointId) {
          assertThat(c.path("status").asText()).isEqualTo("COMPLETED");
          found = true;
        }
      }
      assertThat(found).as("checkpoint %d in the job's history", checkpointId).isTrue();

      for (String option : List.of("-full", "--full")) {
        WeirProcess.Result full = cli("checkpoint", option, jobId);
        assertThat(full.exitCode()).as(full.toString()).isZero();
        Matcher fullId =
            Pattern.compile("Checkpoint\\((\\d+)\\) for job " + jobId + " completed\\.")
                .matcher(full.out());
        assertThat(fullId.find()).as(full.toString()).isTrue();
        assertThat(Long.parseLong(fullId.group(1))).isGreaterThan(checkpointId);
        assertThat(full.err()).contains("Triggering full checkpoint for job " + jobId);
      }
      assertThat(client.awaitCheckpoint(jobId, client.triggerCheckpoint(jobId, "INCREMENTAL")))
          .as("INCREMENTAL: the job's configured kind, as Flink takes it")
          .isGreaterThan(checkpointId);
      assertThatThrownBy(() -> client.triggerCheckpoint(jobId, "DIFFERENTIAL"))
          .isInstanceOf(ClusterClient.RefusedException.class)
          .hasMessageContaining("checkpointType DIFFERENTIAL is not one of CONFIGURED, FULL or");
    } finally {
      cancel(jobId);
    }
    String unknown = "0123456789abcdef0123456789abcdef";
    WeirProcess.Result none = cli("checkpoint", unknown);
    assertThat(none.exitCode()).as(none.toString()).isEqualTo(1);
    assertThat(none.err()).contains(unknown).doesNotContain("refused POST");
  }

  @Test
  void checkpointOfAJobWithoutCheckpointingIsRefusedNamingTheSetting() throws Exception {
    WeirProcess.Result run =
        cli(
            "run",
            "-d",
            "-p",
            "1",
            "-D",
            "execution.checkpointing.interval=0",
            "-c",
            COUNT_JOB,
            jar.toString());
    assertThat(run.exitCode()).as(run.toString()).isZero();
    String jobId = jobId(run);
    try {
      WeirProcess.Result checkpoint = cli("checkpoint", jobId);
      assertThat(checkpoint.exitCode()).as(checkpoint.toString()).isEqualTo(1);
      assertThat(checkpoint.err())
          .contains("does not take checkpoints")
          .contains("execution.checkpointing.interval");
    } finally {
      cancel(jobId);
    }
  }

  @Test
  void savepointDisposeDeletesASavepointAndRefusesWhatIsNone() throws Exception {
    Path checkpoints = dir.resolve("dispose-checkpoints");
    String jobId =
        runCountJob(
            checkpoints,
            "-D",
            "execution.checkpointing.externalized-checkpoint-retention=RETAIN_ON_CANCELLATION");
    Path savepoint;
    try {
      WeirProcess.Result taken = cli("savepoint", jobId, dir.resolve("savepoints").toString());
      assertThat(taken.exitCode()).as(taken.toString()).isZero();
      Matcher path = Pattern.compile("Savepoint completed\\. Path: (\\S+)").matcher(taken.out());
      assertThat(path.find()).as(taken.toString()).isTrue();
      savepoint = Path.of(URI.create(path.group(1)));
    } finally {
      cancel(jobId);
    }
    Path checkpoint;
    try (Stream<Path> chk = Files.list(checkpoints.resolve(jobId))) {
      checkpoint =
          chk.filter(p -> p.getFileName().toString().startsWith("chk-"))
              .filter(p -> Files.exists(p.resolve("_metadata")))
              .findFirst()
              .orElseThrow();
    }

    WeirProcess.Result ofCheckpoint = cliLocal("savepoint", "--dispose", checkpoint.toString());
    assertThat(ofCheckpoint.exitCode()).as(ofCheckpoint.toString()).isEqualTo(1);
    assertThat(ofCheckpoint.err())
        .contains(checkpoint.toString())
        .contains("not a savepoint")
        .doesNotContain("\tat ");
    assertThat(checkpoint.resolve("_metadata")).exists();

    Path nothing = dir.resolve("no-such-savepoint");
    WeirProcess.Result missing = cliLocal("savepoint", "-d", nothing.toString());
    assertThat(missing.exitCode()).as(missing.toString()).isEqualTo(1);
    assertThat(missing.err()).contains(nothing.toString()).contains("does not exist");

    Path notOne = Files.createDirectories(dir.resolve("not-a-savepoint"));
    Files.writeString(notOne.resolve("data.txt"), "keep me");
    WeirProcess.Result other = cliLocal("savepoint", "--dispose", notOne.toString());
    assertThat(other.exitCode()).as(other.toString()).isEqualTo(1);
    assertThat(other.err()).contains(notOne.toString()).contains("not a savepoint");
    assertThat(notOne.resolve("data.txt")).exists();

    WeirProcess.Result dispose = cliLocal("savepoint", "-d", savepoint.toString());
    assertThat(dispose.exitCode()).as(dispose.toString()).isZero();
    assertThat(dispose.out()).contains("disposed");
    assertThat(savepoint).doesNotExist();
  }

  @Test
  void listShowsStartTimesUnderFlinksHeadings() throws Exception {
    String jobId = runCountJob(dir.resolve("list-checkpoints"));
    Pattern line =
        Pattern.compile(
            "\\d{2}\\.\\d{2}\\.\\d{4} \\d{2}:\\d{2}:\\d{2} : "
                + jobId
                + " : throttled-count \\((\\w+)\\)");
    try {
      WeirProcess.Result list = cli("list");
      assertThat(list.exitCode()).as(list.toString()).isZero();
      assertThat(list.out())
          .contains("------------------ Running/Restarting Jobs -------------------")
          .contains("No scheduled jobs.")
          .doesNotContain("Terminated Jobs");
      Matcher running = line.matcher(list.out());
      assertThat(running.find()).as(list.toString()).isTrue();
      assertThat(running.group(1)).isEqualTo("RUNNING");

      WeirProcess.Result onlyRunning = cli("list", "-r");
      assertThat(line.matcher(onlyRunning.out()).find()).as(onlyRunning.toString()).isTrue();
      assertThat(onlyRunning.out()).doesNotContain("scheduled");

      WeirProcess.Result onlyScheduled = cli("list", "-s");
      assertThat(onlyScheduled.out()).isEqualTo("No scheduled jobs.\n");
    } finally {
      cancel(jobId);
    }
    WeirProcess.Result all = cli("list", "-a");
    assertThat(all.exitCode()).as(all.toString()).isZero();
    assertThat(all.out())
        .contains("---------------------- Terminated Jobs -----------------------");
    Matcher ended = line.matcher(all.out());
    assertThat(ended.find()).as(all.toString()).isTrue();
    assertThat(ended.group(1)).isEqualTo("CANCELED");
  }

  @Test
  void anAttachedRunSaysWhenItsJobWaitsForSlots() throws Exception {
    WeirProcess.Started run =
        WeirProcess.start(
            dir,
            "run",
            "-m",
            jobManager,
            "-p",
            "3",
            "-D",
            "slot.request.timeout=10 min",
            "-c",
            COUNT_JOB,
            jar.toString(),
            dir.resolve("attached-waiting-checkpoints").toUri().toString());
    try {
      await()
          .atMost(Duration.ofSeconds(60))
          .pollInterval(Duration.ofMillis(100))
          .until(
              () ->
                  Pattern.compile(" waits for slots: \\d+ of its subtasks are SCHEDULED")
                      .matcher(run.err())
                      .find());
      String jobId = jobId(new WeirProcess.Result(0, run.out(), run.err()));
      cancel(jobId);
      // Attached: it saw its job end, and ends with it.
      assertThat(run.process().waitFor(60, java.util.concurrent.TimeUnit.SECONDS)).isTrue();
      assertThat(run.process().exitValue()).isEqualTo(1);
      assertThat(run.out()).contains("Job " + jobId + " was cancelled.");
    } finally {
      run.process().destroyForcibly();
    }
  }

  @Test
  void aJobWaitingForSlotsShowsItsSubtasksScheduled() throws Exception {
    // Three subtasks wide on a cluster of two slots: it waits for slots until cancelled.
    WeirProcess.Result run =
        cli(
            "run",
            "-d",
            "-p",
            "3",
            "-D",
            "slot.request.timeout=10 min",
            "-c",
            COUNT_JOB,
            jar.toString(),
            dir.resolve("waiting-checkpoints").toUri().toString());
    assertThat(run.exitCode()).as(run.toString()).isZero();
    String jobId = jobId(run);
    try {
      await()
          .atMost(Duration.ofSeconds(60))
          .untilAsserted(
              () -> {
                JsonNode job = client.get("/jobs/" + jobId);
                assertThat(job.path("state").asText()).isEqualTo("RUNNING");
                assertThat(job.path("vertices").size()).isPositive();
                for (JsonNode vertex : job.path("vertices")) {
                  assertThat(vertex.path("status").asText())
                      .as(job.toString())
                      .isEqualTo("SCHEDULED");
                  assertThat(vertex.path("tasks").path("SCHEDULED").asInt()).isEqualTo(3);
                  assertThat(vertex.path("tasks").path("RUNNING").asInt()).isZero();
                }
              });
      // Every subtask waits: Flink's task counts in /jobs/overview, and weir list says it.
      int subtasks = 3 * client.get("/jobs/" + jobId).path("vertices").size();
      JsonNode tasks = null;
      for (JsonNode job : client.get("/jobs/overview").path("jobs")) {
        if (job.path("jid").asText().equals(jobId)) {
          tasks = job.path("tasks");
        }
      }
      assertThat(tasks).as("job %s in /jobs/overview", jobId).isNotNull();
      assertThat(tasks.path("total").asInt()).as(tasks.toString()).isEqualTo(subtasks);
      assertThat(tasks.path("scheduled").asInt()).as(tasks.toString()).isEqualTo(subtasks);
      assertThat(tasks.path("running").asInt()).as(tasks.toString()).isZero();
      WeirProcess.Result list = cli("list", "-r");
      assertThat(list.exitCode()).as(list.toString()).isZero();
      assertThat(list.out())
          .contains(
              " : "
                  + jobId
                  + " : throttled-count (RUNNING, waiting for slots: "
                  + subtasks
                  + " of "
                  + subtasks
                  + " subtasks)");
    } finally {
      cancel(jobId);
    }
  }

  @Test
  void errorsNameTheJarTheUserGaveAndKeepTheRequestForVerbose() throws Exception {
    WeirProcess.Result noClass = cli("run", "-c", "com.example.NoSuchMain", jar.toString());
    assertThat(noClass.exitCode()).as(noClass.toString()).isEqualTo(1);
    assertThat(noClass.err())
        .contains(jar + " has no class com.example.NoSuchMain")
        .doesNotContain("/jars/")
        .doesNotContain("\tat ");

    // The job's main fails on the JobManager: the jar is named as given, not by its hash, and
    // without the REST call that carried the refusal.
    WeirProcess.Result mainFails =
        cli("run", "-c", FAILING_JOB, jar.toString(), "--records", "many");
    assertThat(mainFails.exitCode()).as(mainFails.toString()).isEqualTo(1);
    assertThat(mainFails.err())
        .contains("The entry class " + FAILING_JOB + " of jar " + jar + " failed")
        .contains("For input string: \"many\"")
        .doesNotContain("refused POST")
        .doesNotContain("/jars/")
        .doesNotContain("request body")
        .doesNotContain("caused by")
        .doesNotContainPattern("[0-9a-f]{64}");

    WeirProcess.Result verbose =
        cli("run", "--verbose", "-c", FAILING_JOB, jar.toString(), "--records", "many");
    assertThat(verbose.exitCode()).as(verbose.toString()).isEqualTo(1);
    assertThat(verbose.err()).contains("refused POST /jars/").contains("\tat io.weir.");

    WeirProcess.Result noMain = cli("run", jar.toString());
    assertThat(noMain.exitCode()).as(noMain.toString()).isEqualTo(1);
    assertThat(noMain.err())
        .contains(jar.toString())
        .contains("Main-Class")
        .doesNotContainPattern("[0-9a-f]{64}");

    WeirProcess.Result flink = cli("run", flinkJar.toString());
    assertThat(flink.exitCode()).as(flink.toString()).isEqualTo(1);
    assertThat(flink.err())
        .contains(
            flinkJar
                + ": this job was compiled against Flink's API; compile it against"
                + " io.weir:weir-api (see docs/migrating-from-flink.md)")
        .contains("com.example.flinkjob.WordCount uses org.apache.flink.")
        .doesNotContain("\tat ");

    // A client of the REST API meets the same refusal, the jar named as it was uploaded.
    String flinkJarId = client.upload(flinkJar);
    assertThatThrownBy(() -> client.run(flinkJarId, null, List.of(), null, Map.of()))
        .isInstanceOf(ClusterClient.RefusedException.class)
        .hasMessageContaining(
            "'flink-wordcount.jar' ("
                + flinkJarId
                + "): this job was compiled against Flink's API; compile it against"
                + " io.weir:weir-api (see docs/migrating-from-flink.md)");
  }

  @Test
  void theLocalSessionClusterStartsOnlyOnceTheJarAndSettingsAreChecked() throws Exception {
    WeirProcess.Result typo =
        cliLocal(
            "run", "-D", "execution.checkpointing.intervall=1s", "-c", COUNT_JOB, jar.toString());
    assertThat(typo.exitCode()).as(typo.toString()).isEqualTo(1);
    assertThat(typo.err())
        .contains("did you mean 'execution.checkpointing.interval'")
        .doesNotContain("Cannot register")
        .doesNotContain("\tat ");
    assertThat(typo.out()).doesNotContain("local session cluster");

    Path missing = dir.resolve("missing.jar");
    WeirProcess.Result noJar = cliLocal("run", missing.toString());
    assertThat(noJar.exitCode()).as(noJar.toString()).isEqualTo(1);
    assertThat(noJar.err()).contains(missing + ": no such file").doesNotContain("Cannot register");
    assertThat(noJar.out()).doesNotContain("local session cluster");

    WeirProcess.Result flink = cliLocal("run", flinkJar.toString());
    assertThat(flink.exitCode()).as(flink.toString()).isEqualTo(1);
    assertThat(flink.err()).contains(flinkJar + ": this job was compiled against Flink's API");
    assertThat(flink.out()).doesNotContain("local session cluster");

    Path broken = dir.resolve("broken.yaml");
    Files.writeString(broken, "execution.checkpointing.interval: 1 s\nparallelism.default 2\n");
    WeirProcess.Result yaml =
        cliLocal("run", "--config", broken.toString(), "-c", COUNT_JOB, jar.toString());
    assertThat(yaml.exitCode()).as(yaml.toString()).isEqualTo(1);
    assertThat(yaml.err()).contains(broken + ":2").doesNotContain("\tat ");
    assertThat(yaml.out()).doesNotContain("local session cluster");

    WeirProcess.Result noClass = cliLocal("run", "-c", "com.example.NoSuchMain", jar.toString());
    assertThat(noClass.exitCode()).as(noClass.toString()).isEqualTo(1);
    assertThat(noClass.err()).contains(jar + " has no class com.example.NoSuchMain");
    assertThat(noClass.out()).doesNotContain("local session cluster");

    Path noSavepoint = dir.resolve("no-such-savepoint-to-resume");
    WeirProcess.Result resume =
        cliLocal("run", "-s", noSavepoint.toString(), "-c", COUNT_JOB, jar.toString());
    assertThat(resume.exitCode()).as(resume.toString()).isEqualTo(1);
    assertThat(resume.err()).contains(noSavepoint + ": does not exist");
    assertThat(resume.out()).doesNotContain("local session cluster");

    WeirProcess.Result detached = local("run", "-d", "-c", COUNT_JOB, jar.toString());
    assertThat(detached.exitCode()).as(detached.toString()).isEqualTo(WeirCli.EXIT_USAGE);
    assertThat(detached.err()).contains("-d (detached) needs --jobmanager");
  }

  /**
   * The errors that need no cluster, each from the real launcher in a process of its own, as a user
   * meets them: a non-zero exit, the thing at fault named on standard error, no stack trace. Each
   * is refused before anything starts (no local session cluster, no cluster's processes), so the
   * nine JVMs, started side by side, end in a few seconds.
   */
  @Test
  void errorsThatNeedNoClusterFailFastInTheirOwnProcessNamingTheFaultWithoutAStackTrace()
      throws Exception {
    Path missingJar = dir.resolve("no-such-job.jar");
    Path brokenYaml = dir.resolve("broken-run-config.yaml");
    Files.writeString(brokenYaml, "execution.checkpointing.interval: 1 s\nparallelism.default 2\n");
    Path notASavepoint = Files.createDirectories(dir.resolve("not-a-savepoint-either"));
    Files.writeString(notASavepoint.resolve("data.txt"), "keep me");
    Path refusedHome = dir.resolve("refused-cluster-process");
    String unknownJob = "0123456789abcdef0123456789abcdef";
    String nowhere;
    try (java.net.ServerSocket socket = new java.net.ServerSocket(0, 1, null)) {
      nowhere = "127.0.0.1:" + socket.getLocalPort(); // closed before the command runs
    }
    Path missingSources = dir.resolve("no-such-sources");
    // Each command line, and what its error must name.
    Map<List<String>, String> cases = new java.util.LinkedHashMap<>();
    cases.put(List.of("run", missingJar.toString()), missingJar + ": no such file");
    cases.put(
        List.of("run", flinkJar.toString()),
        flinkJar + ": this job was compiled against Flink's API");
    cases.put(
        List.of(
            "run", "-D", "execution.checkpointing.intervall=1s", "-c", COUNT_JOB, jar.toString()),
        "'execution.checkpointing.intervall' (did you mean 'execution.checkpointing.interval'?)");
    cases.put(
        List.of("run", "--config", brokenYaml.toString(), "-c", COUNT_JOB, jar.toString()),
        brokenYaml + ":2");
    cases.put(
        List.of("cluster", "start", "--dir", refusedHome.toString(), "-D", "rest.prot=0"),
        "'rest.prot' (did you mean 'rest.port'?)");
    cases.put(List.of("info", missingJar.toString()), missingJar + ": no such file");
    cases.put(
        List.of("savepoint", "--dispose", notASavepoint.toString()),
        notASavepoint + " is not a savepoint");
    cases.put(
        List.of("checkpoint", "-m", nowhere, unknownJob),
        "Cannot reach the JobManager's REST API at " + nowhere);
    cases.put(
        List.of("migrate", missingSources.toString()), missingSources + ": no such directory");

    Map<List<String>, WeirProcess.Started> started = new java.util.LinkedHashMap<>();
    for (List<String> args : cases.keySet()) {
      started.put(args, WeirProcess.start(dir, args.toArray(String[]::new)));
    }
    try {
      for (Map.Entry<List<String>, WeirProcess.Started> e : started.entrySet()) {
        String command = "./weir " + String.join(" ", e.getKey());
        Process process = e.getValue().process();
        assertThat(process.waitFor(60, java.util.concurrent.TimeUnit.SECONDS))
            .as("%s ends", command)
            .isTrue();
        String err = e.getValue().err();
        String said = command + "\n--- stdout\n" + e.getValue().out() + "--- stderr\n" + err;
        assertThat(process.exitValue()).as(said).isNotZero();
        assertThat(err).as(said).contains(cases.get(e.getKey())).doesNotContain("\tat ");
        assertThat(e.getValue().out()).as(said).doesNotContain("local session cluster");
      }
    } finally {
      started.values().forEach(p -> p.process().destroyForcibly());
    }
    assertThat(refusedHome.resolve("jobmanager.pid")).doesNotExist();
    assertThat(notASavepoint.resolve("data.txt")).exists();
  }

  @Test
  void clusterStartRefusesAnUnknownKeyAndABrokenConfigFileBeforeStartingAnything()
      throws Exception {
    Path home = dir.resolve("refused-cluster");
    WeirProcess.Result typo =
        cliLocal("cluster", "start", "--dir", home.toString(), "-D", "rest.prot=0");
    assertThat(typo.exitCode()).as(typo.toString()).isEqualTo(1);
    assertThat(typo.err()).contains("'rest.prot' (did you mean 'rest.port'?)");
    assertThat(home.resolve("jobmanager.pid")).doesNotExist();

    Path broken = dir.resolve("broken-cluster.yaml");
    Files.writeString(broken, "rest.port: 0\n\tjobmanager.rpc.port: 0\n");
    WeirProcess.Result yaml =
        cliLocal("cluster", "start", "--dir", home.toString(), "--config", broken.toString());
    assertThat(yaml.exitCode()).as(yaml.toString()).isEqualTo(1);
    assertThat(yaml.err()).contains(broken + ":2").doesNotContain("\tat ");
    assertThat(home.resolve("jobmanager.pid")).doesNotExist();
  }
}

package io.weir.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import io.weir.cluster.StatusFile;
import io.weir.cluster.client.ClusterClient;
import io.weir.cluster.rpc.HostPort;
import io.weir.connector.kafka.KafkaBroker;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A Kafka job jar submitted as a Flink user submits one: {@code weir cluster start} and {@code weir
 * run -m ... JAR --bootstrap-servers ...} as child processes of the real {@code ./weir} launcher,
 * with the example's shaded jar ({@code weir-examples-kafka}, the connector and kafka-clients
 * bundled) against a real KRaft broker. The cluster's processes run on the CLI's runtime class
 * path, which has no Kafka: the job's Kafka classes, its serializers loaded by name and its
 * producers' and consumers' threads all come from the job's class loader. A TaskManager running the
 * job is SIGKILLed once, mid-run, and a {@code read_committed} consumer of the output topic still
 * sees each page's counts 1..n exactly once; {@code weir cancel} ends the job.
 */
@Timeout(240)
class KafkaJobJarIT {

  @RegisterExtension static final KafkaBroker KAFKA = new KafkaBroker();

  static final int PAGES = 7;
  static final int BEFORE_KILL = 3000;
  static final int AFTER_KILL = 2000;

  private static Path dir;
  private static Path jar;
  private static String jobManager;
  private static ClusterClient client;
  private static final List<ProcessHandle> started = new ArrayList<>();

  @BeforeAll
  static void startCluster() throws Exception {
    jar = Path.of(System.getProperty("weir.examples.kafka.jar", "")).toAbsolutePath();
    assertThat(jar)
        .as("the Kafka example's jar: build it with mvn -pl weir-examples-kafka -am package")
        .isRegularFile();
    // What makes this the path a user takes: the cluster's processes have no Kafka of their own.
    assertThat(Files.readString(WeirProcess.ROOT.resolve("weir-cli/target/classpath.txt")))
        .as("the class path of ./weir and of the processes it starts")
        .doesNotContain("/org/apache/kafka/")
        .doesNotContain("weir-connector-kafka");
    dir = Files.createTempDirectory("weir-kafka-jar");
    WeirProcess.Result start =
        WeirProcess.run(
            dir,
            "cluster",
            "start",
            "--taskmanagers",
            "2",
            "--slots",
            "2",
            "--dir",
            dir.toString(),
            "-D",
            "jobmanager.rpc.port=0",
            "-D",
            "rest.port=0",
            // A killed TaskManager is noticed within seconds, not the default 50.
            "-D",
            "heartbeat.interval=250",
            "-D",
            "heartbeat.timeout=3000",
            "--jvm-option=-Xmx256m");
    for (String name : List.of("jobmanager", "taskmanager-1", "taskmanager-2")) {
      Path pid = dir.resolve(name + ".pid");
      if (Files.exists(pid)) {
        ProcessHandle.of(Long.parseLong(Files.readString(pid).strip())).ifPresent(started::add);
      }
    }
    assertThat(start.exitCode()).as(start.toString()).isZero();
    jobManager = StatusFile.read(dir.resolve("jobmanager.status")).get("rest.address");
    client = new ClusterClient(HostPort.parse(jobManager, "test"), null);
  }

  @AfterAll
  static void stopCluster() {
    if (dir != null) {
      WeirCli.commandLine().execute("cluster", "stop", "--dir", dir.toString());
    }
    started.forEach(ProcessHandle::destroyForcibly);
  }

  @Test
  void jobJarWithTheConnectorBundledCountsExactlyOnceAcrossASigkilledTaskManager()
      throws Exception {
    KAFKA.createTopic("page-views", 2);
    KAFKA.createTopic("page-view-counts", 2);
    produceViews(0, BEFORE_KILL);

    WeirProcess.Result run =
        WeirProcess.run(
            dir,
            "run",
            "-m",
            jobManager,
            "-d",
            "-p",
            "2",
            // The sink's transaction timeout must outlast interval + checkpoint timeout + restart
            // delay, which these keep below the test broker's transaction.max.timeout.ms.
            "-D",
            "execution.checkpointing.timeout=20s",
            "-D",
            "restart-strategy.type=fixed-delay",
            "-D",
            "restart-strategy.fixed-delay.attempts=5",
            "-D",
            "restart-strategy.fixed-delay.delay=1s",
            jar.toString(),
            // The job's own arguments, after the jar, as with flink run.
            "--bootstrap-servers",
            KAFKA.bootstrapServers(),
            "--checkpoint-interval",
            "300",
            "--checkpoint-dir",
            dir.resolve("checkpoints").toUri().toString(),
            "--transaction-timeout-ms",
            "60000");
    assertThat(run.exitCode()).as(run.toString()).isZero();
    Matcher id = Pattern.compile("JobID ([0-9a-f]{32})").matcher(run.out());
    assertThat(id.find()).as(run.toString()).isTrue();
    String jobId = id.group(1);

    // Mid-run: some counts committed, the input not necessarily all read.
    await()
        .atMost(Duration.ofSeconds(90))
        .pollInterval(Duration.ofMillis(200))
        .until(
            () ->
                state(jobId).equals("RUNNING")
                    && completedCheckpoints(jobId) >= 2
                    && !KAFKA.readCommitted("page-view-counts").isEmpty());
    ProcessHandle victim = hostOf(jobId);
    victim.destroyForcibly(); // SIGKILL
    await().atMost(Duration.ofSeconds(10)).until(() -> !victim.isAlive());
    produceViews(BEFORE_KILL, AFTER_KILL);

    int total = BEFORE_KILL + AFTER_KILL;
    await()
        .atMost(Duration.ofSeconds(120))
        .pollInterval(Duration.ofMillis(500))
        .until(() -> KAFKA.readCommitted("page-view-counts").size() >= total);
    assertThat(state(jobId)).isEqualTo("RUNNING");
    // The counts above came through a restart: the exception history holds the lost TaskManager.
    assertThat(client.get("/jobs/" + jobId + "/exceptions").toString())
        .contains("TaskManager")
        .contains("was lost");

    // A few more checkpoints: a duplicate would be committed by now.
    long checkpoints = completedCheckpoints(jobId);
    await()
        .atMost(Duration.ofSeconds(30))
        .pollInterval(Duration.ofMillis(200))
        .until(() -> completedCheckpoints(jobId) >= checkpoints + 3);
    assertExactlyOnce(KAFKA.readCommitted("page-view-counts"), total);

    WeirProcess.Result cancel = WeirProcess.run(dir, "cancel", "-m", jobManager, jobId);
    assertThat(cancel.exitCode()).as(cancel.toString()).isZero();
    await()
        .atMost(Duration.ofSeconds(30))
        .pollInterval(Duration.ofMillis(200))
        .until(() -> state(jobId).equals("CANCELED"));
    // The canceled attempt's open transaction is aborted, not left to time out.
    KAFKA.awaitNoOpenTransaction("page-view-counts", Duration.ofSeconds(30));
    assertExactlyOnce(KAFKA.readCommitted("page-view-counts"), total);

    // The Kafka clients came from the job's jar: no class went missing on either TaskManager,
    // and no client's MBean found another registered under its name.
    for (int i = 1; i <= 2; i++) {
      assertThat(Files.readString(dir.resolve("log/taskmanager-" + i + ".log")))
          .as("taskmanager-%s.log", i)
          .doesNotContain("ClassNotFoundException")
          .doesNotContain("NoClassDefFoundError")
          .doesNotContain("InstanceAlreadyExistsException");
    }
  }

  /** Views {@code from .. from + n - 1}, view {@code i} of page {@code /p(i % PAGES)}. */
  private static void produceViews(int from, int n) throws Exception {
    for (int partition = 0; partition < 2; partition++) {
      int p = partition;
      KAFKA.produce(
          "page-views",
          partition,
          IntStream.range(from, from + n)
              .filter(i -> i % 2 == p)
              .mapToObj(i -> "/p" + (i % PAGES))
              .toList());
    }
  }

  /** Each page's counts are 1..n once each, n its views: no view lost, none counted twice. */
  private static void assertExactlyOnce(List<String> lines, int total) {
    Map<String, List<Long>> counts = new HashMap<>();
    for (String line : lines) {
      String[] parts = line.split(",");
      counts.computeIfAbsent(parts[0], k -> new ArrayList<>()).add(Long.parseLong(parts[1]));
    }
    assertThat(counts).hasSize(PAGES);
    for (int page = 0; page < PAGES; page++) {
      int p = page;
      long views = IntStream.range(0, total).filter(i -> i % PAGES == p).count();
      assertThat(counts.get("/p" + page))
          .as("the counts of page /p%s", page)
          .containsExactlyInAnyOrderElementsOf(
              IntStream.rangeClosed(1, (int) views).mapToObj(Long::valueOf).toList());
    }
    assertThat(lines).hasSize(total);
  }

  private static String state(String jobId) throws Exception {
    return client.get("/jobs/" + jobId).path("state").asText();
  }

  private static long completedCheckpoints(String jobId) throws Exception {
    return client.get("/jobs/" + jobId + "/checkpoints").path("counts").path("completed").asLong();
  }

  /** The process of a TaskManager that runs a task of {@code jobId}. */
  private static ProcessHandle hostOf(String jobId) throws Exception {
    List<String> hosts = new ArrayList<>();
    for (JsonNode tm : client.get("/taskmanagers").path("taskmanagers")) {
      if (tm.path("tasks").toString().contains(jobId)) {
        hosts.add(tm.path("id").asText());
      }
    }
    assertThat(hosts).as("TaskManagers running job %s", jobId).isNotEmpty();
    for (int i = 1; i <= 2; i++) {
      String id = StatusFile.read(dir.resolve("taskmanager-" + i + ".status")).get("id");
      if (hosts.contains(id)) {
        long pid =
            Long.parseLong(Files.readString(dir.resolve("taskmanager-" + i + ".pid")).strip());
        return ProcessHandle.of(pid).orElseThrow();
      }
    }
    throw new AssertionError("No status file names TaskManager " + hosts);
  }
}

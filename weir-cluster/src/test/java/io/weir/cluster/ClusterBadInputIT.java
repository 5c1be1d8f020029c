package io.weir.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.weir.cluster.client.ClusterClient;
import io.weir.cluster.rpc.HostPort;
import io.weir.cluster.rpc.Secrets;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Bad input against a real cluster that requires a shared secret: a TaskManager pointed at a wrong
 * address, jars without a usable main class, a job needing more slots than exist, garbage bytes on
 * the control port, and peers with the wrong secret.
 */
class ClusterBadInputIT {

  private static final String SECRET = "s3cret-for-tests";
  private static TestCluster cluster;
  private static String jarId;

  @BeforeAll
  static void startCluster() throws Exception {
    cluster =
        new TestCluster(
            "badinput",
            Map.of(
                ClusterOptions.HEARTBEAT_INTERVAL.key(), "250",
                ClusterOptions.HEARTBEAT_TIMEOUT.key(), "3000",
                ClusterOptions.SLOT_REQUEST_TIMEOUT.key(), "2000",
                ClusterOptions.SECRET.key(), SECRET));
    cluster.startJobManager();
    cluster.startTaskManager(2);
    jarId = cluster.client.upload(TestCluster.testJobJar(cluster.dir.resolve("job.jar"), null));
  }

  @AfterAll
  static void stopCluster() {
    if (cluster != null) {
      cluster.close();
    }
  }

  private static int closedPort() throws Exception {
    try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
      return s.getLocalPort();
    }
  }

  @Test
  void taskManagerPointedAtAWrongAddressRetriesWithBackoff() throws Exception {
    int port = closedPort();
    TestCluster.Node tm =
        cluster.startTaskManagerAt(
            "127.0.0.1:" + port, 1, Map.of(ClusterOptions.SECRET.key(), SECRET));
    try {
      tm.awaitLog(
          Pattern.compile(
              "Cannot register with the JobManager at 127\\.0\\.0\\.1:"
                  + port
                  + " \\(attempt 4: UNAVAILABLE[^)]*\\); retrying in 4000 ms"),
          Duration.ofSeconds(60));
      String log = tm.log();
      assertThat(log).contains("attempt 1: UNAVAILABLE").contains("retrying in 500 ms");
      assertThat(log).contains("retrying in 1000 ms").contains("retrying in 2000 ms");
      assertThat(log).contains("Check --jobmanager HOST:PORT");
      assertThat(tm.process.isAlive()).isTrue();
    } finally {
      tm.process.destroyForcibly().waitFor();
    }
  }

  @Test
  void aJarWithoutAMainClassIsRefusedNamingTheJarAndWhatToDo() throws Exception {
    assertThatThrownBy(() -> cluster.client.run(jarId, null, List.of(), 1, Map.of()))
        .hasMessageContaining("The jar " + jarId + " names no Main-Class in its manifest")
        .hasMessageContaining("give the entry class");
    assertThatThrownBy(
            () -> cluster.client.run(jarId, "io.weir.testjobs.Missing", List.of(), 1, Map.of()))
        .hasMessageContaining("The jar " + jarId + " has no class io.weir.testjobs.Missing");
    assertThatThrownBy(
            () -> cluster.client.run(jarId, "io.weir.testjobs.NoJob", List.of(), 1, Map.of()))
        .hasMessageContaining("io.weir.testjobs.NoJob")
        .hasMessageContaining("returned without executing a job");
    assertThatThrownBy(() -> cluster.client.run("0".repeat(64), null, List.of(), 1, Map.of()))
        .hasMessageContaining("No jar " + "0".repeat(64) + " on this JobManager");
  }

  @Test
  void aJobNeedingMoreSlotsThanExistFailsAfterTheBoundedWait() throws Exception {
    long start = System.nanoTime();
    String jobId =
        cluster.client.run(
            jarId,
            "io.weir.testjobs.KeyedCountJob",
            List.of(
                cluster.dir.resolve("out-slots").toString(),
                "100",
                "10",
                cluster.dir.resolve("checkpoints").toUri().toString(),
                "1"),
            3,
            Map.of());
    await()
        .atMost(Duration.ofSeconds(60))
        .pollInterval(Duration.ofMillis(100))
        .until(() -> cluster.jobState(jobId).equals("FAILED"));
    assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start))
        .isGreaterThanOrEqualTo(2000);
    String failure = cluster.client.get("/jobs/" + jobId).path("failure").asText();
    assertThat(failure)
        .contains("needs 3 slots")
        .contains("slot.request.timeout")
        .contains("has 2 of 2 free")
        .contains("Start more TaskManagers");
  }

  @Test
  void aMainThatBuildsAnotherPlanOnATaskManagerFailsTheJobAtOnceNamingTheDifference()
      throws Exception {
    String jobId =
        cluster.client.run(jarId, "io.weir.testjobs.ClockNamedJob", List.of(), 1, Map.of());
    await()
        .atMost(Duration.ofSeconds(60))
        .pollInterval(Duration.ofMillis(100))
        .until(() -> cluster.jobState(jobId).equals("FAILED"));
    String failure = cluster.client.get("/jobs/" + jobId).path("failure").asText();
    assertThat(failure)
        .contains("io.weir.testjobs.ClockNamedJob")
        .doesNotContain("INVALID_ARGUMENT")
        .contains("built another plan on this TaskManager than on the JobManager")
        .containsPattern(
            "expected vertex 0 '[^']*stamped-\\d+[^']*'.*, but built vertex 0 '[^']*stamped-\\d+")
        .contains("must build the same plan in every process");
    assertThat(cluster.client.get("/jobs/" + jobId + "/exceptions").at("/exceptionHistory/entries"))
        .as("a difference every attempt would meet again restarts nothing (1000 attempts allowed)")
        .hasSizeLessThanOrEqualTo(2);
  }

  @Test
  void garbageOnTheControlPortClosesTheConnectionAndTheJobManagerKeepsRunning() throws Exception {
    byte[] garbage = new byte[4096];
    new Random(42).nextBytes(garbage);
    try (Socket socket = new Socket("127.0.0.1", cluster.rpcPort)) {
      socket.setSoTimeout(30_000);
      OutputStream out = socket.getOutputStream();
      out.write(garbage);
      out.flush();
      InputStream in = socket.getInputStream();
      byte[] buffer = new byte[8192];
      int n;
      do {
        n = in.read(buffer);
      } while (n >= 0);
    } catch (java.net.SocketException reset) {
      // a reset is a closed connection too
    }
    cluster.jobManager.awaitLog(
        Pattern.compile("HTTP/2 client preface string missing or corrupt"), Duration.ofSeconds(30));
    assertThat(cluster.jobManager.process.isAlive()).isTrue();
    assertThat(cluster.taskManagerIds()).contains(cluster.taskManagers.get(0).id);
  }

  @Test
  void peersWithTheWrongSecretAreRefusedAndLogged() throws Exception {
    ClusterClient wrong = new ClusterClient(new HostPort("127.0.0.1", cluster.restPort), "wrong");
    assertThatThrownBy(() -> wrong.upload(cluster.dir.resolve("job.jar")))
        .hasMessageContaining("401")
        .hasMessageContaining("secret");
    ClusterClient none = new ClusterClient(new HostPort("127.0.0.1", cluster.restPort), null);
    assertThatThrownBy(() -> none.run(jarId, "io.weir.testjobs.NoJob", List.of(), 1, Map.of()))
        .hasMessageContaining("401");
    assertThat(cluster.jobManager.log()).contains("Refused REST call POST /jars/upload");

    TestCluster.Node tm =
        cluster.startTaskManagerAt(
            "127.0.0.1:" + cluster.rpcPort, 1, Map.of(ClusterOptions.SECRET.key(), "wrong"));
    assertThat(tm.process.waitFor(60, TimeUnit.SECONDS)).isTrue();
    assertThat(tm.process.exitValue()).isEqualTo(1);
    assertThat(tm.log()).contains("refused this TaskManager").contains(ClusterOptions.SECRET.key());
    assertThat(cluster.jobManager.log()).contains("Refused RegisterTaskManager from /127.0.0.1");
  }

  @Test
  void aTaskManagersControlPortRefusesCallsWithoutTheSecretAndSurvivesGarbage() throws Exception {
    TestCluster.Node tm = cluster.taskManagers.get(0);
    int port =
        Integer.parseInt(
            tm.awaitLog(
                    Pattern.compile("control port 127\\.0\\.0\\.1:(\\d+)"), Duration.ofSeconds(10))
                .group(1));
    io.grpc.ManagedChannel channel =
        io.grpc.netty.NettyChannelBuilder.forAddress("127.0.0.1", port).usePlaintext().build();
    try {
      assertThatThrownBy(
              () ->
                  io.weir.cluster.rpc.TaskManagerServiceGrpc.newBlockingStub(channel)
                      .withDeadlineAfter(30, TimeUnit.SECONDS)
                      .releaseJob(
                          io.weir.cluster.rpc.ReleaseJobRequest.newBuilder()
                              .setJobId("a".repeat(32))
                              .build()))
          .hasMessageContaining("UNAUTHENTICATED")
          .hasMessageContaining(ClusterOptions.SECRET.key());
    } finally {
      channel.shutdownNow();
    }
    tm.awaitLog(
        Pattern.compile(
            "Refused ReleaseJob from /127\\.0\\.0\\.1:\\d+ on the TaskManager's control port"),
        Duration.ofSeconds(10));

    byte[] garbage = new byte[4096];
    new Random(7).nextBytes(garbage);
    try (Socket socket = new Socket("127.0.0.1", port)) {
      socket.setSoTimeout(30_000);
      socket.getOutputStream().write(garbage);
      socket.getOutputStream().flush();
      while (socket.getInputStream().read(new byte[8192]) >= 0) {
        // until the TaskManager closes the connection
      }
    } catch (java.net.SocketException reset) {
      // a reset is a closed connection too
    }
    tm.awaitLog(
        Pattern.compile("HTTP/2 client preface string missing or corrupt"), Duration.ofSeconds(30));
    assertThat(tm.process.isAlive()).isTrue();
    await().atMost(Duration.ofSeconds(30)).until(() -> cluster.taskManagerIds().contains(tm.id));
  }

  @Test
  void aTaskManagersDataPortClosesGarbageAndPeersWithoutTheSecretAndKeepsRunning()
      throws Exception {
    TestCluster.Node tm = cluster.taskManagers.get(0);
    int port =
        Integer.parseInt(
            tm.awaitLog(
                    Pattern.compile("Data plane listening on 127\\.0\\.0\\.1:(\\d+)"),
                    Duration.ofSeconds(10))
                .group(1));
    // An HTTP request, then noise: its first four bytes read as a frame far too long.
    byte[] garbage = new byte[4096];
    new Random(11).nextBytes(garbage);
    byte[] http = "GET / HTTP/1.1\r\n".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
    System.arraycopy(http, 0, garbage, 0, http.length);
    closedAfterSending(port, garbage);
    tm.awaitLog(Pattern.compile("data connection from /127\\.0\\.0\\.1"), Duration.ofSeconds(30));
    // A well-formed greeting without the secret.
    java.io.ByteArrayOutputStream bytes = new java.io.ByteArrayOutputStream();
    java.io.DataOutputStream hello = new java.io.DataOutputStream(bytes);
    hello.writeInt(1 + 12);
    hello.writeByte(1);
    hello.writeInt(0x57454952);
    hello.writeInt(2); // an older data plane's version: the missing secret is refused first
    hello.writeInt(0);
    closedAfterSending(port, bytes.toByteArray());
    tm.awaitLog(
        Pattern.compile("did not present the cluster's secret \\(security.cluster.secret\\)"),
        Duration.ofSeconds(30));
    assertThat(tm.process.isAlive()).isTrue();
    await().atMost(Duration.ofSeconds(30)).until(() -> cluster.taskManagerIds().contains(tm.id));
  }

  /** Sends {@code bytes} to {@code port} and reads until the peer closes the connection. */
  private static void closedAfterSending(int port, byte[] bytes) throws Exception {
    try (Socket socket = new Socket("127.0.0.1", port)) {
      socket.setSoTimeout(30_000);
      socket.getOutputStream().write(bytes);
      socket.getOutputStream().flush();
      while (socket.getInputStream().read(new byte[8192]) >= 0) {
        // until the TaskManager closes the connection
      }
    } catch (java.net.SocketException reset) {
      // a reset is a closed connection too
    }
  }

  @Test
  void unknownJobIsNamed() throws Exception {
    assertThatThrownBy(() -> cluster.client.get("/jobs/" + "a".repeat(32)))
        .isInstanceOfSatisfying(
            ClusterClient.RefusedException.class, e -> assertThat(e.status()).isEqualTo(404))
        .hasMessageContaining("No job " + "a".repeat(32) + " on this JobManager");
  }

  /**
   * A client's mistakes are answered with their status and a message, and leave no stack trace in
   * the JobManager's log: nothing went wrong in the JobManager.
   */
  @Test
  void aClientsMistakesLeaveNoStackTraceInTheJobManagersLog() throws Exception {
    int logged = cluster.jobManager.log().length();

    HttpResponse<String> malformed = post("/jars/" + jarId + "/run", "{\"entryClass\": ");
    assertThat(malformed.statusCode()).as(malformed.body()).isEqualTo(400);
    assertThat(malformed.body()).doesNotContain("com.fasterxml").doesNotContain("\\tat ");
    HttpResponse<String> unknownJob =
        post("/jobs/" + "b".repeat(32) + "/savepoints", "{\"target-directory\": \"/tmp/sp\"}");
    assertThat(unknownJob.statusCode()).as(unknownJob.body()).isEqualTo(404);
    assertThat(unknownJob.body()).contains("No job " + "b".repeat(32));

    // The JobManager logs a record before it answers: what these calls logged is in by now.
    List<String> records = logRecords(cluster.jobManager.log().substring(logged));
    assertThat(records)
        .as("what the JobManager logged while it answered")
        .noneMatch(r -> r.contains("REST call"))
        .noneMatch(r -> r.contains("\n"));
  }

  private static HttpResponse<String> post(String path, String body) throws Exception {
    return HttpClient.newHttpClient()
        .send(
            HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + cluster.restPort + path))
                .header("Content-Type", "application/json")
                .header(Secrets.HEADER, SECRET)
                .POST(HttpRequest.BodyPublishers.ofString(body))
                .build(),
            HttpResponse.BodyHandlers.ofString());
  }

  /**
   * The records of {@code log}, each its first line ({@code HH:mm:ss.SSS LEVEL [thread] ...}) and
   * the lines that follow it before the next record's: a stack trace's frames.
   */
  private static List<String> logRecords(String log) {
    List<String> records = new java.util.ArrayList<>();
    Pattern start = Pattern.compile("^\\d\\d:\\d\\d:\\d\\d\\.\\d{3} ");
    for (String line : log.split("\n")) {
      if (start.matcher(line).find() || records.isEmpty()) {
        records.add(line);
      } else {
        records.set(records.size() - 1, records.get(records.size() - 1) + "\n" + line);
      }
    }
    return records;
  }
}

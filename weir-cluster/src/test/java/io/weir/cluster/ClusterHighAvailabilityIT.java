package io.weir.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import io.weir.cluster.ha.ZooKeeperProxy;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.curator.test.InstanceSpec;
import org.apache.curator.test.TestingServer;
import org.apache.zookeeper.ZooDefs;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * JobManager high availability on a real ZooKeeper server (Curator's {@link TestingServer}, in this
 * JVM), with JobManager and TaskManager processes: SIGKILL of the leading JobManager, twice, each
 * time replaced by a new standby, loses nothing and repeats nothing. The standby takes over, finds
 * the job in ZooKeeper and the storage directory and adopts its running tasks, which never restart,
 * with checkpoint ids that go on rising; when a TaskManager of the job died with the leader, it
 * restores the job from its newest recorded checkpoint instead. The exactly-once file sink's output
 * is exact either way.
 */
class ClusterHighAvailabilityIT {

  private static TestingServer zooKeeper;
  private static TestCluster cluster;
  private static final List<TestCluster.JobManagerNode> jobManagers = new ArrayList<>();

  /** The settings of every process. */
  private static final Map<String, String> settings = new HashMap<>();

  /** JobManagers stopped with SIGSTOP: asked nothing while they sleep. */
  private static final Set<TestCluster.JobManagerNode> paused = ConcurrentHashMap.newKeySet();

  @BeforeAll
  static void startCluster() throws Exception {
    zooKeeper =
        new TestingServer(
            new InstanceSpec(
                Files.createTempDirectory("zookeeper-").toFile(), -1, -1, -1, true, -1, 200, -1),
            true);
    settings.put(ClusterOptions.HEARTBEAT_INTERVAL.key(), "250");
    // Longer than a leader stays paused in these tests: woken, it still counts its TaskManagers
    // alive and calls them (which refuse it), rather than dropping them unasked.
    settings.put(ClusterOptions.HEARTBEAT_TIMEOUT.key(), "20000");
    settings.put("high-availability.type", "zookeeper");
    settings.put("high-availability.zookeeper.quorum", zooKeeper.getConnectString());
    settings.put("high-availability.cluster-id", "ha-it");
    settings.put("high-availability.zookeeper.client.session-timeout", "4 s");
    settings.put("high-availability.zookeeper.client.connection-timeout", "5 s");
    // An operation on a lost connection gives up after about 3.5 s, not Flink's 35 s.
    settings.put("high-availability.zookeeper.client.retry-wait", "500 ms");
    // Long enough for a new leader to be elected (the session timeout) and adopt the tasks.
    settings.put("high-availability.jobmanager-loss-grace", "10 s");
    cluster = new TestCluster("ha", settings);
    settings.put("high-availability.storageDir", cluster.dir.resolve("ha").toUri().toString());
    jobManagers.add(cluster.startAnotherJobManager());
    jobManagers.add(cluster.startAnotherJobManager());
    for (int i = 0; i < 2; i++) {
      cluster.taskManagers.add(cluster.startTaskManagerAt(null, 2, settings));
    }
  }

  @AfterAll
  static void stopCluster() throws Exception {
    for (TestCluster.JobManagerNode jm : jobManagers) {
      jm.node().process.destroyForcibly().waitFor();
    }
    if (cluster != null) {
      cluster.close();
    }
    if (zooKeeper != null) {
      zooKeeper.close();
    }
  }

  /** The JobManager whose {@code /health/leader} answers 200, once there is one. */
  private static TestCluster.JobManagerNode awaitLeader() {
    TestCluster.JobManagerNode[] leader = new TestCluster.JobManagerNode[1];
    await()
        .atMost(Duration.ofSeconds(60))
        .pollInterval(Duration.ofMillis(100))
        .until(
            () -> {
              for (TestCluster.JobManagerNode jm : jobManagers) {
                if (jm.node().process.isAlive() && !paused.contains(jm) && leads(jm)) {
                  leader[0] = jm;
                  return true;
                }
              }
              return false;
            });
    return leader[0];
  }

  private static boolean leads(TestCluster.JobManagerNode jm) {
    try {
      return jm.client().get("/health").path("leader").asBoolean();
    } catch (Exception e) {
      return false;
    }
  }

  private static JsonNode job(TestCluster.JobManagerNode jm, String jobId) {
    try {
      return jm.client().get("/jobs/" + jobId);
    } catch (Exception e) {
      return null; // not (yet) known to this JobManager, or it does not lead
    }
  }

  private static long latestCheckpoint(TestCluster.JobManagerNode jm, String jobId) {
    try {
      return jm.client()
          .get("/jobs/" + jobId + "/checkpoints")
          .path("latest")
          .path("completed")
          .path("id")
          .asLong(0);
    } catch (Exception e) {
      return 0;
    }
  }

  /** Starts JobManagers until {@code count} run (a test may have killed some). */
  private static void ensureJobManagers(int count) throws IOException {
    jobManagers.removeIf(jm -> !jm.node().process.isAlive());
    while (jobManagers.size() < count) {
      jobManagers.add(cluster.startAnotherJobManager());
    }
  }

  /** The gate file of each job: its input ends once the file exists ({@code GatedEnd}). */
  private static final Map<String, Path> GATES = new ConcurrentHashMap<>();

  /**
   * Submits the keyed count of {@code n} numbers over 10 keys to {@code leader}. Its input ends
   * only when {@link #awaitEnd} opens its gate, so that no job ends before its test is done with
   * it.
   */
  private static String runKeyedCount(TestCluster.JobManagerNode leader, Path out, long n)
      throws Exception {
    String jarId =
        leader.client().upload(TestCluster.testJobJar(cluster.dir.resolve("job.jar"), null));
    Path gate = cluster.dir.resolve(out.getFileName() + ".gate");
    List<String> args =
        new ArrayList<>(TestCluster.keyedCountArgs(out, n, cluster.dir.resolve("checkpoints"), 3));
    args.add(gate.toString());
    String jobId = leader.client().run(jarId, "io.weir.testjobs.KeyedCountJob", args, 2, Map.of());
    GATES.put(jobId, gate);
    return jobId;
  }

  /** As {@link #runKeyedCount}, returning once the leader completed two checkpoints of it. */
  private static String runKeyedCountPastItsFirstCheckpoints(
      TestCluster.JobManagerNode leader, Path out, long n) throws Exception {
    String jobId = runKeyedCount(leader, out, n);
    await()
        .atMost(Duration.ofSeconds(90))
        .pollInterval(Duration.ofMillis(100))
        .until(() -> latestCheckpoint(leader, jobId) > 1);
    return jobId;
  }

  /**
   * Opens the job's gate, so that its input ends, then waits until {@code jm} reports job {@code
   * jobId} ended, and returns its final state.
   */
  private static String awaitEnd(TestCluster.JobManagerNode jm, String jobId) throws IOException {
    Path gate = GATES.get(jobId);
    if (gate != null && !Files.exists(gate)) {
      Files.createFile(gate);
    }
    await()
        .atMost(Duration.ofSeconds(180))
        .pollInterval(Duration.ofMillis(200))
        .until(
            () ->
                job(jm, jobId) != null
                    && List.of("FINISHED", "FAILED", "CANCELED")
                        .contains(job(jm, jobId).path("state").asText()));
    return job(jm, jobId).path("state").asText();
  }

  /** What a leader logs when it adopted the running tasks of job {@code jobId} (step 2). */
  private static Pattern adopted(String jobId) {
    return Pattern.compile(
        "Job 'keyed-count' \\("
            + jobId
            + "\\) adopted the \\d+ running subtasks .* the newest recorded checkpoint is"
            + " (\\w+)");
  }

  /** How many deployments of job {@code jobId} the TaskManagers started. */
  private static long deployments(String jobId) {
    Pattern started = Pattern.compile("Starting \\d+ tasks of job '[^']*' \\(" + jobId + "\\)");
    return cluster.taskManagers.stream().mapToLong(tm -> count(started, tm.log())).sum();
  }

  @Test
  void killingTheLeaderTwiceLosesAndRepeatsNothingAndRestartsNoTask() throws Exception {
    ensureJobManagers(2);
    TestCluster.JobManagerNode leader = awaitLeader();
    Path out = cluster.dir.resolve("out-kills");
    long n = 45_000;
    String jobId = runKeyedCount(leader, out, n);
    await().atMost(Duration.ofSeconds(60)).until(() -> deployments(jobId) > 0);
    long deployed = deployments(jobId);
    TestCluster.JobManagerNode standby =
        jobManagers.stream().filter(jm -> jm != leader).findFirst().orElseThrow();
    assertThat(standby.client().get("/health").path("leader").asBoolean()).isFalse();

    long lastId = 0;
    TestCluster.JobManagerNode current = leader;
    for (int kill = 1; kill <= 2; kill++) {
      TestCluster.JobManagerNode victim = current;
      long before = lastId;
      await()
          .atMost(Duration.ofSeconds(90))
          .pollInterval(Duration.ofMillis(100))
          .until(() -> latestCheckpoint(victim, jobId) > before + 1);
      lastId = latestCheckpoint(victim, jobId);

      victim.node().process.destroyForcibly().waitFor();
      jobManagers.remove(victim);
      jobManagers.add(cluster.startAnotherJobManager());

      current = awaitLeader();
      TestCluster.JobManagerNode next = current;
      assertThat(next).isNotSameAs(victim);
      await()
          .atMost(Duration.ofSeconds(90))
          .pollInterval(Duration.ofMillis(100))
          .until(() -> job(next, jobId) != null);
      long killedAt = lastId;
      // Ids go on from the counter in ZooKeeper: the new leader's first is above every old one.
      await()
          .atMost(Duration.ofSeconds(90))
          .pollInterval(Duration.ofMillis(100))
          .until(() -> latestCheckpoint(next, jobId) > killedAt);
      // The new leader took up the flight recorder's history kept beside the newest recorded
      // checkpoint: the checkpoints before the failover are there, then its own, ids rising.
      JsonNode checkpoints = next.client().get("/jobs/" + jobId + "/checkpoints");
      List<Long> ids = new ArrayList<>();
      checkpoints.path("history").forEach(c -> ids.add(c.path("id").asLong()));
      assertThat(ids).as(checkpoints.toString()).isSorted().doesNotHaveDuplicates();
      assertThat(ids).as("taken up from before the failover").contains(killedAt);
      assertThat(ids.get(ids.size() - 1)).isGreaterThan(killedAt);
      lastId = latestCheckpoint(next, jobId);
      // Step 2: the new leader adopted the tasks of the first attempt; none was redeployed.
      assertThat(next.node().log()).containsPattern(adopted(jobId));
      assertThat(deployments(jobId)).as("no task restarted").isEqualTo(deployed);
    }
    TestCluster.JobManagerNode last = current;
    assertThat(awaitEnd(last, jobId)).isEqualTo("FINISHED");
    TestCluster.assertKeyedCountExactlyOnce(out, n);

    // A finished job is not run again by the next leader.
    last.node().process.destroyForcibly().waitFor();
    jobManagers.remove(last);
    TestCluster.JobManagerNode after = awaitLeader();
    after
        .node()
        .awaitLog(
            Pattern.compile("Leading with .*: 0 job\\(s\\) to recover were found"),
            Duration.ofSeconds(60));
    assertThat(after.client().get("/jobs").toString()).doesNotContain(jobId);
  }

  @Test
  void killingTheLeaderWithATaskManagerOfTheJobRestoresItFromItsNewestCheckpoint()
      throws Exception {
    ensureJobManagers(2);
    TestCluster.JobManagerNode leader = awaitLeader();
    Path out = cluster.dir.resolve("out-leader-and-taskmanager");
    long n = 30_000;
    String jobId = runKeyedCountPastItsFirstCheckpoints(leader, out, n);
    Pattern started = Pattern.compile("Starting \\d+ tasks of job '[^']*' \\(" + jobId + "\\)");
    TestCluster.Node host =
        cluster.taskManagers.stream()
            .filter(tm -> count(started, tm.log()) > 0)
            .findFirst()
            .orElseThrow();

    leader.node().process.destroyForcibly().waitFor();
    host.process.destroyForcibly().waitFor();
    jobManagers.remove(leader);
    cluster.taskManagers.remove(host);
    jobManagers.add(cluster.startAnotherJobManager());
    cluster.taskManagers.add(cluster.startTaskManagerAt(null, 2, settings));

    // Whatever the surviving TaskManager offers cannot make the whole job: once its offer is in,
    // or the grace period is over, the new leader restores the job (step 1).
    TestCluster.JobManagerNode next = awaitLeader();
    next.node()
        .awaitLog(
            Pattern.compile(
                "Job 'keyed-count' recovers from its checkpoint \\d+"
                    + "|Job 'keyed-count' cannot adopt the running subtasks"),
            Duration.ofSeconds(60));
    assertThat(awaitEnd(next, jobId)).isEqualTo("FINISHED");
    TestCluster.assertKeyedCountExactlyOnce(out, n);
  }

  @Test
  void aPausedLeaderIsDeposedAndDoesNothingWhenItWakes() throws Exception {
    ensureJobManagers(2);
    TestCluster.JobManagerNode leader = awaitLeader();
    Path out = cluster.dir.resolve("out-pause");
    long n = 30_000;
    String jobId = runKeyedCountPastItsFirstCheckpoints(leader, out, n);

    // SIGSTOP past the session timeout (4 s): a standby takes over while the leader sleeps.
    TestCluster.signal("STOP", leader.node());
    paused.add(leader);
    TestCluster.JobManagerNode next;
    try {
      next = awaitLeader();
      TestCluster.JobManagerNode taking = next;
      await()
          .atMost(Duration.ofSeconds(90))
          .pollInterval(Duration.ofMillis(100))
          .until(
              () ->
                  job(taking, jobId) != null
                      // Its own, not one of the history it took up from its predecessor.
                      && Pattern.compile("Completed checkpoint \\d+ of job " + jobId)
                          .matcher(taking.node().log())
                          .find());
      // With ZooKeeper away, the woken leader cannot learn that it was deposed (its connection
      // is only suspended, which it tolerates): it goes on calling the TaskManagers.
      zooKeeper.stop();
    } finally {
      refusedBefore = refusedCalls();
      TestCluster.signal("CONT", leader.node());
      paused.remove(leader);
    }
    try {
      // Back within the session timeout (4 s), so the new leader keeps its session.
      await()
          .atMost(Duration.ofSeconds(3))
          .pollInterval(Duration.ofMillis(20))
          .until(() -> refusedCalls() > refusedBefore);
    } finally {
      zooKeeper.restart();
    }
    long firstOfNext = firstCompletedCheckpoint(next.node().log(), jobId);

    // Awake, it learns that its session is gone: it suspends the job and becomes a standby.
    leader.node().awaitLog(Pattern.compile("no longer leads"), Duration.ofSeconds(60));
    leader
        .node()
        .awaitLog(
            Pattern.compile("Job 'keyed-count' \\(" + jobId + "\\) suspended"),
            Duration.ofSeconds(60));
    assertThat(awaitEnd(next, jobId)).isEqualTo("FINISHED");
    TestCluster.assertKeyedCountExactlyOnce(out, n);
    assertThat(leads(leader)).isFalse();

    // Nothing it did after the takeover counted: every checkpoint it completed is older than the
    // new leader's first, and what it sent the TaskManagers after waking was refused.
    Matcher completed =
        Pattern.compile("Completed checkpoint (\\d+) of job " + jobId).matcher(leader.node().log());
    while (completed.find()) {
      assertThat(Long.parseLong(completed.group(1))).isLessThan(firstOfNext);
    }
    System.out.println(
        "Calls of the deposed leader that the TaskManagers refused: "
            + (refusedCalls() - refusedBefore));
  }

  /** {@link #refusedCalls} when the paused leader was woken. */
  private static volatile long refusedBefore;

  /** Calls of a deposed leader the TaskManagers refused. */
  private static long refusedCalls() {
    Pattern refused = Pattern.compile("Refused \\w+ of the leader of epoch");
    return cluster.taskManagers.stream().mapToLong(tm -> count(refused, tm.log())).sum();
  }

  @Test
  void zooKeeperAwayForLessThanTheSessionTimeoutCostsTheRunningJobNothing() throws Exception {
    ensureJobManagers(2);
    TestCluster.JobManagerNode leader = awaitLeader();
    Path out = cluster.dir.resolve("out-zookeeper");
    long n = 30_000;
    String jobId = runKeyedCountPastItsFirstCheckpoints(leader, out, n);
    Pattern suspended = Pattern.compile("The connection to ZooKeeper at \\S+ is suspended");
    Pattern back = Pattern.compile("The connection to ZooKeeper at \\S+ is back");
    long suspendedBefore = count(suspended, leader.node().log());
    long backBefore = count(back, leader.node().log());

    zooKeeper.stop();
    await()
        .atMost(Duration.ofSeconds(30))
        .pollInterval(Duration.ofMillis(50))
        .until(() -> count(suspended, leader.node().log()) > suspendedBefore);
    zooKeeper.restart();
    await()
        .atMost(Duration.ofSeconds(30))
        .pollInterval(Duration.ofMillis(50))
        .until(() -> count(back, leader.node().log()) > backBefore);

    // The same leader runs the job on: no new election, no restart, exact output.
    long after = latestCheckpoint(leader, jobId);
    await()
        .atMost(Duration.ofSeconds(90))
        .pollInterval(Duration.ofMillis(100))
        .until(() -> latestCheckpoint(leader, jobId) > after);
    assertThat(awaitEnd(leader, jobId)).isEqualTo("FINISHED");
    TestCluster.assertKeyedCountExactlyOnce(out, n);
    assertThat(leads(leader)).isTrue();
    assertThat(leader.node().log()).doesNotContain("no longer leads");
    assertThat(job(leader, jobId).path("metrics").path("job.restarts").asLong()).isZero();
  }

  @Test
  void zooKeeperAwayPastTheSessionTimeoutRestartsNoTask() throws Exception {
    ensureJobManagers(2);
    TestCluster.JobManagerNode leader = awaitLeader();
    Path out = cluster.dir.resolve("out-zookeeper-long");
    long n = 30_000;
    String jobId = runKeyedCountPastItsFirstCheckpoints(leader, out, n);
    long deployed = deployments(jobId);
    Pattern suspended = Pattern.compile("The connection to ZooKeeper at \\S+ is suspended");
    Pattern deposed = Pattern.compile("no longer leads");
    Pattern completed = Pattern.compile("Completed checkpoint \\d+ of job " + jobId);
    long suspendedBefore = count(suspended, leader.node().log());
    long deposedBefore = count(deposed, leader.node().log());

    zooKeeper.stop();
    try {
      await()
          .atMost(Duration.ofSeconds(30))
          .pollInterval(Duration.ofMillis(50))
          .until(() -> count(suspended, leader.node().log()) > suspendedBefore);
      long completedWhileAway = count(completed, leader.node().log());
      // Past the session timeout (4 s) the leader must assume its session is gone: it stops
      // leading, and without a quorum no JobManager takes over.
      await()
          .atMost(Duration.ofSeconds(30))
          .pollInterval(Duration.ofMillis(50))
          .until(() -> count(deposed, leader.node().log()) > deposedBefore);
      assertThat(jobManagers.stream().filter(ClusterHighAvailabilityIT::leads)).isEmpty();
      assertThat(count(completed, leader.node().log()))
          .as("no checkpoint completes while its pointer cannot be recorded")
          .isEqualTo(completedWhileAway);
    } finally {
      zooKeeper.restart();
    }

    // A leader is elected once ZooKeeper is back, within the TaskManagers' grace period: it adopts
    // the tasks, which ran on all along.
    TestCluster.JobManagerNode next = awaitLeader();
    next.node().awaitLog(adopted(jobId), Duration.ofSeconds(60));
    assertThat(awaitEnd(next, jobId)).isEqualTo("FINISHED");
    TestCluster.assertKeyedCountExactlyOnce(out, n);
    assertThat(deployments(jobId)).as("no task restarted").isEqualTo(deployed);
  }

  @Test
  void aCheckpointWhoseRecordingWasLostOnTheWireIsCommittedByTheNextLeader() throws Exception {
    // The leader reaches ZooKeeper through a proxy that drops the reply to its next transaction
    // (a checkpoint's pointer: ZooKeeper applies it, the leader never hears) and then lets it
    // reconnect no more. The standby and the TaskManagers reach ZooKeeper directly.
    jobManagers.forEach(jm -> jm.node().process.destroyForcibly());
    jobManagers.clear();
    ZooKeeperProxy proxy = new ZooKeeperProxy(zooKeeper.getPort());
    TestCluster.JobManagerNode leader =
        cluster.startAnotherJobManager(
            Map.of("high-availability.zookeeper.quorum", proxy.connectString()));
    jobManagers.add(leader);
    try {
      assertThat(awaitLeader()).isSameAs(leader);
      jobManagers.add(cluster.startAnotherJobManager());
      Path out = cluster.dir.resolve("out-lost-reply");
      long n = 30_000;
      String jobId = runKeyedCountPastItsFirstCheckpoints(leader, out, n);

      proxy.dropNextReplyTo(ZooDefs.OpCode.multi, true);
      await().atMost(Duration.ofSeconds(60)).until(() -> proxy.droppedReplies() == 1);
      Matcher unrecorded =
          leader
              .node()
              .awaitLog(
                  Pattern.compile("did not record checkpoint (\\d+)"), Duration.ofSeconds(60));
      long lost = Long.parseLong(unrecorded.group(1));

      // Its session expires; the standby leads, finds the pointer the server applied, adopts the
      // tasks and notifies that checkpoint, whose transactions the sink commits now.
      TestCluster.JobManagerNode next = awaitLeader();
      assertThat(next).isNotSameAs(leader);
      Matcher adoption = next.node().awaitLog(adopted(jobId), Duration.ofSeconds(60));
      assertThat(adoption.group(1)).isEqualTo(String.valueOf(lost));
      assertThat(awaitEnd(next, jobId)).isEqualTo("FINISHED");
      TestCluster.assertKeyedCountExactlyOnce(out, n);
    } finally {
      // Cut off from ZooKeeper for good, it could never lead again: the next test starts another.
      leader.node().process.destroyForcibly().waitFor();
      jobManagers.remove(leader);
      proxy.close();
    }
  }

  private static long count(Pattern pattern, String log) {
    return pattern.matcher(log).results().count();
  }

  private static long firstCompletedCheckpoint(String log, String jobId) {
    Matcher m = Pattern.compile("Completed checkpoint (\\d+) of job " + jobId).matcher(log);
    assertThat(m.find()).as("the new leader completed a checkpoint").isTrue();
    return Long.parseLong(m.group(1));
  }
}

package io.weir.cluster.ha;

import static io.weir.cluster.ha.HaTesting.closeQuietly;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.weir.api.config.Configuration;
import io.weir.cluster.ha.HaTesting.RecordingContender;
import io.weir.runtime.checkpoint.CompletedCheckpoint;
import io.weir.runtime.checkpoint.CompletedStop;
import io.weir.runtime.recovery.TimingOutReads;
import io.weir.runtime.storage.FileSystemCheckpointStorage;
import io.weir.runtime.storage.FileSystems;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.zookeeper.ZooDefs;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The completed-checkpoint store on a real ZooKeeper server: pointers only, fenced by the epoch,
 * ambiguous writes read back. The network faults are real: a proxy between client and server drops
 * a reply or the connection.
 */
class ZooKeeperCompletedCheckpointStoreTest {

  @TempDir static Path dir;

  @RegisterExtension
  static final ZooKeeperServerExtension ZOOKEEPER = new ZooKeeperServerExtension();

  private static int clusters;

  private final List<AutoCloseable> open = new ArrayList<>();
  private String job;
  private String clusterId;
  private FileSystemCheckpointStorage storage;

  @BeforeEach
  void newJob() {
    clusters++;
    clusterId = "store-" + clusters;
    job = String.format("%032x", clusters);
    storage = new FileSystemCheckpointStorage(dir.resolve("checkpoints").toUri(), job, 1024);
  }

  @AfterEach
  void closeAll() {
    for (int i = open.size() - 1; i >= 0; i--) {
      closeQuietly(open.get(i));
    }
  }

  /** A JobManager: its services (through {@code quorum}) and its leadership. */
  private final class JobManager {
    final ZooKeeperHaServices services;
    final LeaderElection election;
    final RecordingContender contender = new RecordingContender();

    JobManager(String quorum, String name) {
      services =
          ZooKeeperHaServices.start(
              HaTesting.configuration(quorum, dir.resolve("ha"))
                  .setString("high-availability.cluster-id", clusterId));
      open.add(services);
      election =
          services.leaderElection(name, name + ":6123", "http://" + name + ":8081", contender);
      open.add(election);
    }

    ZooKeeperCompletedCheckpointStore recover(LeaderEpoch epoch, int numRetained) {
      return services.completedCheckpointStore(
          job,
          epoch,
          numRetained,
          id -> storage.checkpointDirectory(id).toString(),
          new Configuration());
    }
  }

  /** Checkpoint {@code id} with its metadata committed to storage, as the coordinator does. */
  private CompletedCheckpoint committed(long id) throws Exception {
    CompletedCheckpoint checkpoint = new CompletedCheckpoint(job, id, 1000 + id, false, List.of());
    storage.commitCheckpoint(checkpoint);
    return checkpoint;
  }

  private List<String> pointers(ZooKeeperHaServices services) throws Exception {
    return services.client().getChildren().forPath(ZNodes.checkpoints(job)).stream()
        .sorted()
        .toList();
  }

  private static List<Long> ids(List<CompletedCheckpoint> checkpoints) {
    return checkpoints.stream().map(CompletedCheckpoint::checkpointId).toList();
  }

  @Test
  void keepsPointersOnlyAndANewLeaderRecoversTheRetainedCheckpoints() throws Exception {
    JobManager a = new JobManager(ZOOKEEPER.connectString(), "jm-a");
    ZooKeeperCompletedCheckpointStore store = a.recover(a.contender.awaitGrant(), 2);
    assertThat(store.all()).isEmpty();
    assertThat(store.add(committed(1))).isEmpty();
    assertThat(store.add(committed(2))).isEmpty();
    assertThat(ids(store.add(committed(3)))).containsExactly(1L);
    assertThat(pointers(a.services))
        .containsExactly(String.format("%019d", 2), String.format("%019d", 3));
    byte[] pointer = a.services.client().getData().forPath(ZNodes.checkpoint(job, 3));
    assertThat(new String(pointer, java.nio.charset.StandardCharsets.UTF_8))
        .contains(storage.checkpointDirectory(3).toString())
        .hasSizeLessThan(400);

    JobManager b = new JobManager(ZOOKEEPER.connectString(), "jm-b");
    a.election.close();
    ZooKeeperCompletedCheckpointStore recovered = b.recover(b.contender.awaitGrant(), 2);
    assertThat(ids(recovered.all())).containsExactly(3L, 2L);
    assertThat(recovered.recoveryProblems()).isEmpty();
    assertThat(ids(recovered.add(committed(4)))).containsExactly(2L);
    assertThat(ids(recovered.removeAll())).containsExactly(3L, 4L);
    assertThat(pointers(b.services)).isEmpty();
  }

  @Test
  void aDeposedLeadersWriteIsRefusedAndChangesNothing() throws Exception {
    JobManager a = new JobManager(ZOOKEEPER.connectString(), "jm-a");
    LeaderEpoch epochA = a.contender.awaitGrant();
    ZooKeeperCompletedCheckpointStore deposed = a.recover(epochA, 1);
    deposed.add(committed(1));
    JobManager b = new JobManager(ZOOKEEPER.connectString(), "jm-b");
    a.election.close();
    LeaderEpoch epochB = b.contender.awaitGrant();
    ZooKeeperCompletedCheckpointStore current = b.recover(epochB, 1);

    CompletedCheckpoint late = committed(2);
    assertThatThrownBy(() -> deposed.add(late))
        .isInstanceOf(FencedException.class)
        .hasMessageContaining("Recording checkpoint 2 of job " + job)
        .hasMessageContaining("epoch " + epochA.value())
        .hasMessageContaining("epoch " + epochB.value() + " has taken over")
        .hasMessageContaining("delete no file");
    assertThatThrownBy(deposed::removeAll).isInstanceOf(FencedException.class);
    assertThat(pointers(b.services)).containsExactly(String.format("%019d", 1));
    assertThat(ids(current.all())).containsExactly(1L);
    assertThat(ids(current.add(committed(3)))).containsExactly(1L);
  }

  @Test
  void aWriteWhoseReplyIsLostIsReadBackAndItsCheckpointIsKept() throws Exception {
    ZooKeeperProxy proxy = new ZooKeeperProxy(ZOOKEEPER.port());
    open.add(proxy); // closed after the services that connect through it
    JobManager a = new JobManager(proxy.connectString(), "jm-a");
    ZooKeeperCompletedCheckpointStore store = a.recover(a.contender.awaitGrant(), 1);
    store.add(committed(1));

    // The server applies the transaction; its reply is lost with the connection.
    proxy.dropNextReplyTo(ZooDefs.OpCode.multi);
    List<CompletedCheckpoint> discardable = store.add(committed(2));

    assertThat(proxy.droppedReplies()).isEqualTo(1);
    assertThat(ids(discardable)).containsExactly(1L); // never 2
    assertThat(ids(store.all())).containsExactly(2L);
    assertThat(pointers(a.services)).containsExactly(String.format("%019d", 2));
  }

  @Test
  void aWriteWhoseOutcomeStaysUnknownDeletesNothingAndTheNextLeaderFindsIt() throws Exception {
    ZooKeeperProxy proxy = new ZooKeeperProxy(ZOOKEEPER.port());
    open.add(proxy); // closed after the services that connect through it
    JobManager a = new JobManager(proxy.connectString(), "jm-a");
    ZooKeeperCompletedCheckpointStore store = a.recover(a.contender.awaitGrant(), 1);
    store.add(committed(1));
    JobManager b = new JobManager(ZOOKEEPER.connectString(), "jm-b");

    // Applied by the server, the reply lost, and the connection does not come back.
    proxy.dropNextReplyTo(ZooDefs.OpCode.multi, true);
    CompletedCheckpoint second = committed(2);
    assertThatThrownBy(() -> store.add(second))
        .isInstanceOf(UnknownWriteOutcomeException.class)
        .hasMessageContaining("Recording checkpoint 2 of job " + job)
        .hasMessageContaining("Nothing it refers to may be deleted");
    assertThat(proxy.droppedReplies()).isEqualTo(1);
    assertThat(ids(store.all())).containsExactly(1L);

    // The standby leads once the first one's session expired, and finds checkpoint 2.
    ZooKeeperCompletedCheckpointStore recovered = b.recover(b.contender.awaitGrant(), 1);
    assertThat(ids(recovered.all())).containsExactly(2L);
    assertThat(storage.checkpointDirectory(2)).isNotNull();
    assertThat(Path.of(storage.checkpointDirectory(2)).resolve("_metadata")).exists();
  }

  @Test
  void aCompletedStopIsRecoveredByTheNextLeaderAndADeposedOnesIsRefused() throws Exception {
    JobManager a = new JobManager(ZOOKEEPER.connectString(), "jm-a");
    LeaderEpoch epochA = a.contender.awaitGrant();
    ZooKeeperCompletedCheckpointStore store = a.recover(epochA, 1);
    store.add(committed(1));
    assertThat(store.completedStop()).isNull();
    CompletedStop stop = new CompletedStop(2, "file:/savepoints/savepoint-2");
    store.stopCompleted(stop);
    assertThat(store.completedStop()).isEqualTo(stop);

    JobManager b = new JobManager(ZOOKEEPER.connectString(), "jm-b");
    a.election.close();
    LeaderEpoch epochB = b.contender.awaitGrant();
    ZooKeeperCompletedCheckpointStore recovered = b.recover(epochB, 1);
    assertThat(recovered.completedStop()).isEqualTo(stop);
    assertThat(ids(recovered.all())).containsExactly(1L);

    // A job of its own, stopped by a leader that no longer leads: nothing recorded.
    String other = String.format("%032x", 9000 + clusters);
    ZooKeeperCompletedCheckpointStore deposed =
        a.services.completedCheckpointStore(other, epochA, 1, id -> "unused", new Configuration());
    assertThatThrownBy(() -> deposed.stopCompleted(stop))
        .isInstanceOf(FencedException.class)
        .hasMessageContaining("Recording the stop of job " + other + " with savepoint 2");
    assertThat(deposed.completedStop()).isNull();
    assertThat(b.services.client().checkExists().forPath(ZNodes.completedStop(other))).isNull();
  }

  @Test
  void aStopWhoseRecordHasAnUnknownOutcomeCountsAsRecordedAndTheNextLeaderFindsIt()
      throws Exception {
    ZooKeeperProxy proxy = new ZooKeeperProxy(ZOOKEEPER.port());
    open.add(proxy); // closed after the services that connect through it
    JobManager a = new JobManager(proxy.connectString(), "jm-a");
    ZooKeeperCompletedCheckpointStore store = a.recover(a.contender.awaitGrant(), 1);
    store.add(committed(1));
    JobManager b = new JobManager(ZOOKEEPER.connectString(), "jm-b");

    proxy.dropNextReplyTo(ZooDefs.OpCode.multi, true);
    CompletedStop stop = new CompletedStop(2, "file:/savepoints/savepoint-2");
    assertThatThrownBy(() -> store.stopCompleted(stop))
        .isInstanceOf(UnknownWriteOutcomeException.class)
        .hasMessageContaining("Recording the stop of job " + job);
    assertThat(store.completedStop()).as("as good as recorded").isEqualTo(stop);

    ZooKeeperCompletedCheckpointStore recovered = b.recover(b.contender.awaitGrant(), 1);
    assertThat(recovered.completedStop()).isEqualTo(stop);
  }

  @Test
  void aPointerWhoseMetadataCannotBeReadIsReportedAndKept() throws Exception {
    JobManager a = new JobManager(ZOOKEEPER.connectString(), "jm-a");
    ZooKeeperCompletedCheckpointStore store = a.recover(a.contender.awaitGrant(), 2);
    store.add(committed(1));
    store.add(committed(2));
    java.nio.file.Files.delete(Path.of(storage.checkpointDirectory(2)).resolve("_metadata"));

    JobManager b = new JobManager(ZOOKEEPER.connectString(), "jm-b");
    a.election.close();
    ZooKeeperCompletedCheckpointStore recovered = b.recover(b.contender.awaitGrant(), 2);
    assertThat(ids(recovered.all())).containsExactly(1L);
    assertThat(recovered.recoveryProblems())
        .singleElement()
        .asString()
        .contains("Checkpoint 2 of job " + job)
        .contains(storage.checkpointDirectory(2).toString());
    assertThat(pointers(b.services)).hasSize(2);
  }

  @Test
  void aPointerWhoseMetadataReadTimesOutFailsTheRecoveryRatherThanSkippingIt() throws Exception {
    TimingOutReads reads = new TimingOutReads("flaky-zk-store");
    FileSystems.register("flaky-zk-store", reads);
    open.add(() -> FileSystems.unregister("flaky-zk-store"));
    storage =
        new FileSystemCheckpointStorage(
            java.net.URI.create("flaky-zk-store://" + dir.resolve("flaky")), job, 1024);
    JobManager a = new JobManager(ZOOKEEPER.connectString(), "jm-a");
    ZooKeeperCompletedCheckpointStore store = a.recover(a.contender.awaitGrant(), 2);
    store.add(committed(1));
    store.add(committed(2));
    reads.timeOut(path -> path.endsWith("chk-2/_metadata"));

    JobManager b = new JobManager(ZOOKEEPER.connectString(), "jm-b");
    a.election.close();
    LeaderEpoch epoch = b.contender.awaitGrant();
    assertThatThrownBy(() -> b.recover(epoch, 2))
        .isInstanceOf(CheckpointsUnreadableException.class)
        .hasMessageContaining("Checkpoint 2 of job " + job)
        .hasMessageContaining("timed out")
        .hasMessageContaining("No checkpoint is skipped");
    assertThat(pointers(b.services)).hasSize(2);

    reads.answer();
    ZooKeeperCompletedCheckpointStore recovered = b.recover(epoch, 2);
    assertThat(ids(recovered.all())).containsExactly(2L, 1L);
    assertThat(recovered.recoveryProblems()).isEmpty();
  }
}

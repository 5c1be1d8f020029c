package io.weir.cluster.ha;

import io.weir.api.config.Configuration;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.apache.curator.test.InstanceSpec;
import org.apache.curator.test.TestingServer;

/** A real ZooKeeper server with short ticks, and settings and contenders to test against it. */
final class HaTesting {

  /** Short enough for sessions to expire within a test, long enough for a loaded machine. */
  static final String SESSION_TIMEOUT = "2 s";

  private HaTesting() {}

  /** A server whose ticks are 200 ms, so that sessions of 0.4 to 4 s are allowed. */
  static TestingServer server(Path dataDir) throws Exception {
    return new TestingServer(
        new InstanceSpec(dataDir.toFile(), -1, -1, -1, true, -1, 200, -1), true);
  }

  static Configuration configuration(String quorum, Path storageDir) {
    return new Configuration()
        .setString("high-availability.type", "zookeeper")
        .setString("high-availability.zookeeper.quorum", quorum)
        .setString("high-availability.storageDir", storageDir.toString())
        .setString("high-availability.cluster-id", "test")
        .setString("high-availability.zookeeper.client.session-timeout", SESSION_TIMEOUT)
        .setString("high-availability.zookeeper.client.connection-timeout", "1 s")
        .setString("high-availability.zookeeper.client.retry-wait", "100 ms")
        .setString("high-availability.zookeeper.client.max-retry-attempts", "2");
  }

  /** A contender that records what it hears, for the test thread to take in order. */
  static final class RecordingContender implements LeaderElection.Contender {
    /** A grant (with its epoch) or a revocation (empty). */
    final BlockingQueue<Optional<LeaderEpoch>> events = new LinkedBlockingQueue<>();

    /** When each grant came, {@link System#nanoTime()}. */
    final List<Long> grantedAt = new CopyOnWriteArrayList<>();

    @Override
    public void grantLeadership(LeaderEpoch epoch) {
      grantedAt.add(System.nanoTime());
      events.add(Optional.of(epoch));
    }

    @Override
    public void revokeLeadership() {
      events.add(Optional.empty());
    }

    LeaderEpoch awaitGrant() throws InterruptedException {
      Optional<LeaderEpoch> event = events.poll(15, TimeUnit.SECONDS);
      if (event == null || event.isEmpty()) {
        throw new AssertionError("expected a grant, heard " + event);
      }
      return event.get();
    }

    void awaitRevocation() throws InterruptedException {
      Optional<LeaderEpoch> event = events.poll(15, TimeUnit.SECONDS);
      if (event == null || event.isPresent()) {
        throw new AssertionError("expected a revocation, heard " + event);
      }
    }
  }

  /** A listener of leader retrieval whose leaders the test takes in order. */
  static final class RecordingListener implements LeaderRetrieval.Listener {
    final BlockingQueue<Optional<LeaderInfo>> leaders = new LinkedBlockingQueue<>();

    @Override
    public void leaderChanged(Optional<LeaderInfo> leader) {
      leaders.add(leader);
    }

    /** The next leader heard, skipping gaps without one. */
    LeaderInfo awaitLeader() throws InterruptedException {
      while (true) {
        Optional<LeaderInfo> next = leaders.poll(15, TimeUnit.SECONDS);
        if (next == null) {
          throw new AssertionError("no leader heard within 15 s");
        }
        if (next.isPresent()) {
          return next.get();
        }
      }
    }
  }

  static void closeQuietly(AutoCloseable c) {
    if (c == null) {
      return;
    }
    try {
      c.close();
    } catch (Exception e) {
      // closing anyway
    }
  }
}

package io.weir.cluster.ha;

import java.nio.charset.StandardCharsets;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.api.transaction.CuratorOp;
import org.apache.curator.framework.recipes.leader.LeaderLatch;
import org.apache.curator.framework.recipes.leader.LeaderLatchListener;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.OpResult;
import org.apache.zookeeper.data.Stat;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One JobManager's part in the election of the cluster's leader, on Curator's {@link LeaderLatch}.
 * When the latch says this contender leads, it takes the next fencing epoch (bumping the version of
 * {@code /leader/epoch}, only while its latch node still exists), publishes its addresses with that
 * epoch in the ephemeral {@code /leader/info}, and only then grants the {@link Contender}
 * leadership with the epoch. A suspended connection revokes leadership at once (Curator's standard
 * error policy, set by {@link ZooKeeperHaServices}): another JobManager may lead before this one
 * learns that its session expired; when the connection returns, the latch competes again and a new
 * grant comes with a new epoch.
 *
 * <p>The contender's callbacks run one at a time on this election's own thread, in order: a grant
 * is always followed by its revocation before the next grant.
 */
public final class LeaderElection implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(LeaderElection.class);

  /** Who takes part in the election: told when it leads, and when it no longer does. */
  public interface Contender {
    /** This contender leads with {@code epoch}; its address is published. */
    void grantLeadership(LeaderEpoch epoch);

    /** This contender no longer leads: it must stop acting as the leader at once. */
    void revokeLeadership();
  }

  private final CuratorFramework client;
  private final String contenderId;
  private final String rpcAddress;
  private final String restAddress;
  private final Contender contender;
  private final ExecutorService thread;
  private final LeaderLatch latch;

  /** The epoch this contender was granted, while it leads; written on {@link #thread}. */
  private volatile LeaderEpoch epoch;

  private LeaderElection(
      CuratorFramework client,
      String contenderId,
      String rpcAddress,
      String restAddress,
      Contender contender) {
    this.client = client;
    this.contenderId = contenderId;
    this.rpcAddress = rpcAddress;
    this.restAddress = restAddress;
    this.contender = contender;
    this.thread =
        Executors.newSingleThreadExecutor(
            r -> {
              Thread t = new Thread(r, "weir-leader-election-" + contenderId);
              t.setDaemon(true);
              return t;
            });
    this.latch =
        new LeaderLatch(
            client, ZNodes.LEADER_LATCH, contenderId, LeaderLatch.CloseMode.NOTIFY_LEADER);
  }

  static LeaderElection start(
      CuratorFramework client,
      String contenderId,
      String rpcAddress,
      String restAddress,
      Contender contender) {
    LeaderElection election =
        new LeaderElection(client, contenderId, rpcAddress, restAddress, contender);
    election.latch.addListener(
        new LeaderLatchListener() {
          @Override
          public void isLeader() {
            election.granted();
          }

          @Override
          public void notLeader() {
            election.revoked();
          }
        },
        election.thread);
    try {
      election.latch.start();
    } catch (Exception e) {
      election.thread.shutdownNow();
      throw new HighAvailabilityException(
          "Cannot enter the leader election as " + contenderId + ": " + e, e);
    }
    return election;
  }

  /** The epoch this contender leads with, or empty when it does not lead. */
  public Optional<LeaderEpoch> currentEpoch() {
    return Optional.ofNullable(epoch);
  }

  /** Whether this contender leads: granted, and its latch still says so. */
  public boolean hasLeadership() {
    return epoch != null && latch.hasLeadership();
  }

  /** Leaves the election; a leader is revoked first. Waits for the callbacks to end. */
  @Override
  public void close() {
    try {
      latch.close();
    } catch (Exception e) {
      LOG.warn("Leaving the leader election as {} failed", contenderId, e);
    }
    thread.shutdown();
    try {
      if (!thread.awaitTermination(10, TimeUnit.SECONDS)) {
        LOG.warn("The leader election thread of {} did not end within 10 s", contenderId);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** On {@link #thread}: the latch says this contender leads. */
  private void granted() {
    try {
      LeaderEpoch next = takeNextEpoch();
      publish(next);
      epoch = next;
      LOG.info("{} leads with {} (RPC {}, REST {})", contenderId, next, rpcAddress, restAddress);
      contender.grantLeadership(next);
    } catch (NotLeaderAnyMore e) {
      LOG.info("{} lost its leadership before it could take an epoch", contenderId);
    } catch (Exception e) {
      // The latch will say "not leader" when the connection is back in doubt; until then this
      // contender holds the latch without leading, so that no other one leads either. A lost
      // connection ends that; any other failure would last, so the latch is given up.
      LOG.warn("{} could not take its leadership: {}", contenderId, e.toString());
      if (!(e instanceof KeeperException keeper && FencedWrites.isConnectionProblem(keeper))) {
        LOG.warn("{} leaves the election", contenderId, e);
        try {
          latch.close(LeaderLatch.CloseMode.SILENT);
        } catch (Exception closing) {
          LOG.warn("Leaving the election failed", closing);
        }
      }
    }
  }

  /** On {@link #thread}: the latch says this contender no longer leads. */
  private void revoked() {
    LeaderEpoch was = epoch;
    if (was == null) {
      return;
    }
    epoch = null;
    LOG.info("{} no longer leads ({} ended)", contenderId, was);
    try {
      contender.revokeLeadership();
    } finally {
      removeOwnInfo();
    }
  }

  /**
   * Bumps the epoch znode while this contender's latch node exists; its new version is the epoch.
   */
  private LeaderEpoch takeNextEpoch() throws Exception {
    try {
      client
          .create()
          .creatingParentsIfNeeded()
          .forPath(ZNodes.LEADER_EPOCH, "0".getBytes(StandardCharsets.UTF_8));
    } catch (KeeperException.NodeExistsException e) {
      // the usual case: an earlier leader made it
    }
    while (true) {
      String ourPath = latch.getOurPath();
      if (ourPath == null || !latch.hasLeadership()) {
        throw new NotLeaderAnyMore();
      }
      Stat stat = new Stat();
      client.getData().storingStatIn(stat).forPath(ZNodes.LEADER_EPOCH);
      int next = stat.getVersion() + 1;
      try {
        client
            .transaction()
            .forOperations(
                client.transactionOp().check().forPath(ourPath),
                client
                    .transactionOp()
                    .setData()
                    .withVersion(stat.getVersion())
                    .forPath(
                        ZNodes.LEADER_EPOCH,
                        Integer.toString(next).getBytes(StandardCharsets.UTF_8)));
        return new LeaderEpoch(next);
      } catch (KeeperException e) {
        if (failedAt(e, 0)) {
          throw new NotLeaderAnyMore();
        }
        if (!failedAt(e, 1)) {
          throw e;
        }
        // another contender bumped it in between (it had the latch before this one): read again
      }
    }
  }

  /** Replaces {@code /leader/info} with this contender's, if {@code next} is still the epoch. */
  private void publish(LeaderEpoch next) throws Exception {
    byte[] info =
        ZNodeJson.write(new LeaderInfo(next.value(), rpcAddress, restAddress, contenderId));
    while (true) {
      String ourPath = latch.getOurPath();
      if (ourPath == null) {
        throw new NotLeaderAnyMore();
      }
      CuratorOp checkLatch = client.transactionOp().check().forPath(ourPath);
      CuratorOp checkEpoch =
          client
              .transactionOp()
              .check()
              .withVersion(Math.toIntExact(next.value()))
              .forPath(ZNodes.LEADER_EPOCH);
      CuratorOp create =
          client
              .transactionOp()
              .create()
              .withMode(CreateMode.EPHEMERAL)
              .forPath(ZNodes.LEADER_INFO, info);
      try {
        if (client.checkExists().forPath(ZNodes.LEADER_INFO) == null) {
          client.transaction().forOperations(checkLatch, checkEpoch, create);
        } else {
          // the previous leader's, left behind while its session lives on
          CuratorOp delete = client.transactionOp().delete().forPath(ZNodes.LEADER_INFO);
          client.transaction().forOperations(checkLatch, checkEpoch, delete, create);
        }
        return;
      } catch (KeeperException.NoNodeException | KeeperException.NodeExistsException e) {
        if (failedAt(e, 0)) {
          throw new NotLeaderAnyMore();
        }
        // /leader/info came or went in between: look again
      } catch (KeeperException.BadVersionException e) {
        throw new NotLeaderAnyMore();
      }
    }
  }

  /** Deletes {@code /leader/info} if this process's session made it; best effort. */
  private void removeOwnInfo() {
    try {
      if (!client.getZookeeperClient().isConnected()) {
        return; // it goes with the session, or the next leader replaces it
      }
      Stat stat = client.checkExists().forPath(ZNodes.LEADER_INFO);
      long session = client.getZookeeperClient().getZooKeeper().getSessionId();
      if (stat != null && stat.getEphemeralOwner() == session) {
        client.delete().withVersion(stat.getVersion()).forPath(ZNodes.LEADER_INFO);
      }
    } catch (Exception e) {
      LOG.debug("Removing the leader info of {} failed", contenderId, e);
    }
  }

  private static boolean failedAt(KeeperException e, int index) {
    var results = e.getResults();
    return results != null
        && results.size() > index
        && results.get(index) instanceof OpResult.ErrorResult error
        && error.getErr() != KeeperException.Code.OK.intValue()
        && error.getErr() != KeeperException.Code.RUNTIMEINCONSISTENCY.intValue();
  }

  /** The latch was lost between its grant and the epoch or the publication. */
  private static final class NotLeaderAnyMore extends Exception {
    private static final long serialVersionUID = 1L;

    NotLeaderAnyMore() {
      super(null, null, false, false);
    }
  }
}

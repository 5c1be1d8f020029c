package io.weir.cluster.ha;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.api.transaction.CuratorOp;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.OpResult;
import org.apache.zookeeper.data.Stat;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes of a leader: each a ZooKeeper transaction whose first operation checks that the epoch
 * znode still has the leader's version, so that a deposed leader's write is refused ({@link
 * FencedException}) and applies nothing.
 *
 * <p>A write whose answer is lost with the connection may or may not have been applied. It is
 * resolved by reading back once the connection returns: applied, it counts as done; not applied, it
 * is tried again (still conditional on the epoch). Only when the connection does not return within
 * the resolve timeout does the caller get an {@link UnknownWriteOutcomeException}, which says that
 * nothing the write refers to may be deleted. A refusal that follows a lost connection (the retry
 * finds its own node, or a newer epoch) is read back too: Curator retries an operation on a lost
 * connection by itself, so the first attempt may have been applied unseen.
 *
 * <p>Thread-safe; blocks the caller while it waits for the connection.
 */
final class FencedWrites {

  private static final Logger LOG = LoggerFactory.getLogger(FencedWrites.class);

  /** How a caller tells whether its write is in ZooKeeper. */
  @FunctionalInterface
  interface ReadBack {
    boolean applied() throws Exception;
  }

  private final CuratorFramework client;
  private final Duration resolveTimeout;

  FencedWrites(CuratorFramework client, Duration resolveTimeout) {
    this.client = client;
    this.resolveTimeout = resolveTimeout;
  }

  /**
   * Applies {@code ops} atomically if {@code epoch} is still the current one.
   *
   * @param what the write, for messages: "Checkpoint 7 of job ab12..."
   * @throws FencedException if a newer epoch has taken over; nothing was applied
   * @throws UnknownWriteOutcomeException if the connection was lost and did not return in time
   * @throws HighAvailabilityException for any other refusal, naming {@code what}
   */
  void commit(LeaderEpoch epoch, List<CuratorOp> ops, ReadBack readBack, String what) {
    long deadline = System.nanoTime() + resolveTimeout.toNanos();
    Exception connectionLost = null;
    while (true) {
      try {
        if (connectionLost != null) {
          awaitConnection(deadline, what, connectionLost);
          if (readBack.applied()) {
            LOG.info("{}: applied, as read back after the connection was lost", what);
            return;
          }
        }
        List<CuratorOp> all = new ArrayList<>(ops.size() + 1);
        all.add(
            client
                .transactionOp()
                .check()
                .withVersion(Math.toIntExact(epoch.value()))
                .forPath(ZNodes.LEADER_EPOCH));
        all.addAll(ops);
        client.transaction().forOperations(all);
        return;
      } catch (KeeperException e) {
        if (isConnectionProblem(e)) {
          connectionLost = e;
          continue;
        }
        if (readBackQuietly(readBack)) {
          // Curator retried it on a lost connection: the first attempt was applied unseen.
          LOG.info("{}: applied, as read back after its retry was refused ({})", what, e.code());
          return;
        }
        if (epochCheckFailed(e)) {
          throw new FencedException(what, epoch.value(), currentEpoch());
        }
        throw new HighAvailabilityException(what + " failed in ZooKeeper: " + e.getMessage(), e);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new UnknownWriteOutcomeException(
            what + " was interrupted with its outcome unknown: delete nothing it refers to", e);
      } catch (HighAvailabilityException e) {
        throw e;
      } catch (Exception e) {
        throw new HighAvailabilityException(what + " failed: " + e, e);
      }
    }
  }

  /** The current epoch, as the epoch znode's version. */
  long currentEpoch() {
    try {
      Stat stat = client.checkExists().forPath(ZNodes.LEADER_EPOCH);
      return stat == null ? 0 : stat.getVersion();
    } catch (Exception e) {
      throw new HighAvailabilityException("Cannot read the current epoch: " + e, e);
    }
  }

  private void awaitConnection(long deadline, String what, Exception lost)
      throws InterruptedException {
    long remaining = deadline - System.nanoTime();
    if (remaining <= 0
        || !client.blockUntilConnected(
            (int) Math.max(1, TimeUnit.NANOSECONDS.toMillis(remaining)), TimeUnit.MILLISECONDS)) {
      throw new UnknownWriteOutcomeException(
          what
              + ": the connection to ZooKeeper was lost while it was written and did not return"
              + " within "
              + resolveTimeout.toMillis()
              + " ms, so whether it was applied is unknown. Nothing it refers to may be deleted:"
              + " the leader that recovers finds it if it was applied.",
          lost);
    }
  }

  private static boolean readBackQuietly(ReadBack readBack) {
    try {
      return readBack.applied();
    } catch (Exception e) {
      return false;
    }
  }

  static boolean isConnectionProblem(KeeperException e) {
    switch (e.code()) {
      case CONNECTIONLOSS:
      case OPERATIONTIMEOUT:
      case SESSIONEXPIRED:
      case SESSIONMOVED:
        return true;
      default:
        return false;
    }
  }

  /** Whether the transaction failed at its first operation, the epoch check. */
  private static boolean epochCheckFailed(KeeperException e) {
    List<OpResult> results = e.getResults();
    if (results != null && !results.isEmpty()) {
      return results.get(0) instanceof OpResult.ErrorResult error
          && error.getErr() == KeeperException.Code.BADVERSION.intValue();
    }
    return e.code() == KeeperException.Code.BADVERSION && ZNodes.LEADER_EPOCH.equals(e.getPath());
  }
}

package io.weir.cluster.ha;

import java.util.Optional;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.recipes.cache.ChildData;
import org.apache.curator.framework.recipes.cache.CuratorCache;
import org.apache.curator.framework.recipes.cache.CuratorCacheListener;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Follows the leader published in {@code /leader/info} (a {@link CuratorCache} of that one znode),
 * for TaskManagers and clients: its listener hears the current leader, each new one, and the gaps
 * between (no leader). A leader whose epoch is not above the last one heard is not reported: every
 * leader's epoch is greater than its predecessors', so such a node is a stale one.
 *
 * <p>The listener runs on Curator's event thread, one call at a time.
 */
public final class LeaderRetrieval implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(LeaderRetrieval.class);

  /** Hears the leader. */
  public interface Listener {
    /** {@code leader} leads now; empty: no leader is published (an election is going on). */
    void leaderChanged(Optional<LeaderInfo> leader);
  }

  private final CuratorCache cache;
  private final Listener listener;
  private volatile LeaderInfo current;
  private long highestEpoch;

  private LeaderRetrieval(CuratorFramework client, Listener listener) {
    this.cache =
        CuratorCache.build(client, ZNodes.LEADER_INFO, CuratorCache.Options.SINGLE_NODE_CACHE);
    this.listener = listener;
  }

  static LeaderRetrieval start(CuratorFramework client, Listener listener) {
    LeaderRetrieval retrieval = new LeaderRetrieval(client, listener);
    retrieval
        .cache
        .listenable()
        .addListener(
            CuratorCacheListener.builder()
                .forCreatesAndChanges((before, node) -> retrieval.published(node))
                .forDeletes(node -> retrieval.removed())
                .build());
    retrieval.cache.start();
    return retrieval;
  }

  /** The leader last heard of, or empty. */
  public Optional<LeaderInfo> currentLeader() {
    return Optional.ofNullable(current);
  }

  @Override
  public void close() {
    cache.close();
  }

  private synchronized void published(ChildData node) {
    LeaderInfo info;
    try {
      info = ZNodeJson.read(node.getData(), LeaderInfo.class, ZNodes.LEADER_INFO);
    } catch (HighAvailabilityException e) {
      LOG.warn("Ignoring the leader info: {}", e.getMessage());
      return;
    }
    if (info.epoch() <= highestEpoch) {
      return;
    }
    highestEpoch = info.epoch();
    current = info;
    listener.leaderChanged(Optional.of(info));
  }

  private synchronized void removed() {
    if (current != null) {
      current = null;
      listener.leaderChanged(Optional.empty());
    }
  }
}

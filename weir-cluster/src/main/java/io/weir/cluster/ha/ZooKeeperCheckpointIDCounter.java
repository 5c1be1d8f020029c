package io.weir.cluster.ha;

import io.weir.runtime.checkpoint.CheckpointIDCounter;
import java.nio.ByteBuffer;
import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.data.Stat;

/**
 * A job's checkpoint ids on ZooKeeper ({@code /jobs/<job-id>/checkpoint-id-counter}, the last id
 * handed out as 8 bytes): each id is taken by a compare-and-set on the znode's version, so no two
 * callers, in one process or across any number of leaders, ever get the same id. An id whose
 * increment was lost with the connection is skipped, never repeated.
 *
 * <p>Not fenced by the leader's epoch: a deposed leader taking an id costs a gap, nothing else.
 * Thread-safe.
 */
public final class ZooKeeperCheckpointIDCounter implements CheckpointIDCounter {

  private final CuratorFramework client;
  private final String jobId;
  private final String path;

  private ZooKeeperCheckpointIDCounter(CuratorFramework client, String jobId) {
    this.client = client;
    this.jobId = jobId;
    this.path = ZNodes.checkpointIdCounter(jobId);
  }

  /**
   * The counter of {@code jobId}, made if it does not exist; its next id is above {@code lastId} (a
   * job resumed from a savepoint continues its ids) and above every id handed out before.
   */
  static ZooKeeperCheckpointIDCounter create(CuratorFramework client, String jobId, long lastId) {
    ZooKeeperCheckpointIDCounter counter = new ZooKeeperCheckpointIDCounter(client, jobId);
    try {
      try {
        client.create().creatingParentsIfNeeded().forPath(counter.path, bytes(lastId));
      } catch (KeeperException.NodeExistsException e) {
        counter.raiseTo(lastId);
      }
    } catch (HighAvailabilityException e) {
      throw e;
    } catch (Exception e) {
      throw counter.failure("make", e);
    }
    return counter;
  }

  @Override
  public long getAndIncrement() {
    try {
      while (true) {
        Stat stat = new Stat();
        long last = value(client.getData().storingStatIn(stat).forPath(path));
        try {
          client.setData().withVersion(stat.getVersion()).forPath(path, bytes(last + 1));
          return last + 1;
        } catch (KeeperException.BadVersionException e) {
          // taken by another caller, or by an attempt of ours whose answer was lost: next one
        }
      }
    } catch (Exception e) {
      throw failure("take the next id from", e);
    }
  }

  @Override
  public long get() {
    try {
      return value(client.getData().forPath(path));
    } catch (Exception e) {
      throw failure("read", e);
    }
  }

  private void raiseTo(long lastId) throws Exception {
    while (true) {
      Stat stat = new Stat();
      long last = value(client.getData().storingStatIn(stat).forPath(path));
      if (last >= lastId) {
        return;
      }
      try {
        client.setData().withVersion(stat.getVersion()).forPath(path, bytes(lastId));
        return;
      } catch (KeeperException.BadVersionException e) {
        // changed in between: read again
      }
    }
  }

  private HighAvailabilityException failure(String what, Exception e) {
    return new HighAvailabilityException(
        "Cannot " + what + " the checkpoint id counter of job " + jobId + " (" + path + "): " + e,
        e);
  }

  private long value(byte[] data) {
    if (data == null || data.length != Long.BYTES) {
      throw new HighAvailabilityException(
          "The checkpoint id counter of job " + jobId + " (" + path + ") holds no 8-byte number");
    }
    return ByteBuffer.wrap(data).getLong();
  }

  private static byte[] bytes(long value) {
    return ByteBuffer.allocate(Long.BYTES).putLong(value).array();
  }
}

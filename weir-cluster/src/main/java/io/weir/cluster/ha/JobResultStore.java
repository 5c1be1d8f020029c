package io.weir.cluster.ha;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.data.Stat;

/**
 * The results of the cluster's finished jobs (Flink's {@code JobResultStore}), in ZooKeeper ({@code
 * /job-results/<job-id>}, a few hundred bytes each). A result is recorded <em>dirty</em> as soon as
 * the job ended, before its clean-up (its checkpoints, its submission), and marked <em>clean</em>
 * after: a new leader runs no job that has a result, and finishes the clean-up of a dirty one. Both
 * writes are conditional on the leader's epoch.
 *
 * <p>Thread-safe.
 */
public final class JobResultStore {

  /**
   * What a result's znode holds.
   *
   * @param result the job's result
   * @param clean whether its clean-up is done
   * @param epoch the epoch of the leader that wrote it last
   * @param writeId tells this write from any other, for reading back an ambiguous one
   */
  public record Entry(JobResult result, boolean clean, long epoch, String writeId) {}

  private final CuratorFramework client;
  private final FencedWrites writes;

  JobResultStore(CuratorFramework client, FencedWrites writes) {
    this.client = client;
    this.writes = writes;
  }

  /**
   * Records {@code result}, its clean-up still to do.
   *
   * @throws FencedException if a newer leader took over: nothing is recorded
   * @throws HighAvailabilityException if the job has a result already
   */
  public void createDirty(LeaderEpoch epoch, JobResult result) {
    String path = ZNodes.jobResult(result.jobId());
    String writeId = UUID.randomUUID().toString();
    byte[] data = ZNodeJson.write(new Entry(result, false, epoch.value(), writeId));
    try {
      try {
        client.create().creatingParentsIfNeeded().forPath(ZNodes.JOB_RESULTS);
      } catch (KeeperException.NodeExistsException e) {
        // the usual case
      }
      writes.commit(
          epoch,
          List.of(client.transactionOp().create().forPath(path, data)),
          () -> isOurs(path, writeId),
          "Recording the result of job " + result.jobId());
    } catch (HighAvailabilityException e) {
      throw e;
    } catch (Exception e) {
      throw new HighAvailabilityException(
          "Cannot record the result of job " + result.jobId() + ": " + e, e);
    }
  }

  /**
   * Marks the result of {@code jobId} clean: its clean-up is done.
   *
   * @throws FencedException if a newer leader took over
   * @throws HighAvailabilityException if the job has no result
   */
  public void markClean(LeaderEpoch epoch, String jobId) {
    String path = ZNodes.jobResult(jobId);
    try {
      Stat stat = new Stat();
      Entry entry =
          ZNodeJson.read(client.getData().storingStatIn(stat).forPath(path), Entry.class, path);
      if (entry.clean()) {
        return;
      }
      String writeId = UUID.randomUUID().toString();
      byte[] data = ZNodeJson.write(new Entry(entry.result(), true, epoch.value(), writeId));
      writes.commit(
          epoch,
          List.of(
              client.transactionOp().setData().withVersion(stat.getVersion()).forPath(path, data)),
          () -> isOurs(path, writeId),
          "Marking the result of job " + jobId + " clean");
    } catch (KeeperException.NoNodeException e) {
      throw new HighAvailabilityException("Job " + jobId + " has no result to mark clean", e);
    } catch (HighAvailabilityException e) {
      throw e;
    } catch (Exception e) {
      throw new HighAvailabilityException(
          "Cannot mark the result of job " + jobId + " clean: " + e, e);
    }
  }

  /** The entry of {@code jobId}, or empty when the job has no result. */
  public Optional<Entry> get(String jobId) {
    String path = ZNodes.jobResult(jobId);
    try {
      return Optional.of(ZNodeJson.read(client.getData().forPath(path), Entry.class, path));
    } catch (KeeperException.NoNodeException e) {
      return Optional.empty();
    } catch (HighAvailabilityException e) {
      throw e;
    } catch (Exception e) {
      throw new HighAvailabilityException("Cannot read " + path + ": " + e, e);
    }
  }

  /** Whether {@code jobId} ended: a new leader must not run it. */
  public boolean hasResult(String jobId) {
    return get(jobId).isPresent();
  }

  /** The results whose clean-up is still to do. */
  public List<JobResult> dirtyResults() {
    List<JobResult> dirty = new ArrayList<>();
    try {
      for (String id : client.getChildren().forPath(ZNodes.JOB_RESULTS)) {
        get(id).filter(e -> !e.clean()).ifPresent(e -> dirty.add(e.result()));
      }
    } catch (KeeperException.NoNodeException e) {
      return List.of();
    } catch (HighAvailabilityException e) {
      throw e;
    } catch (Exception e) {
      throw new HighAvailabilityException("Cannot list the job results: " + e, e);
    }
    return dirty;
  }

  private boolean isOurs(String path, String writeId) throws Exception {
    try {
      return writeId.equals(
          ZNodeJson.read(client.getData().forPath(path), Entry.class, path).writeId());
    } catch (KeeperException.NoNodeException e) {
      return false;
    }
  }
}

package io.weir.cluster.ha;

import io.weir.api.config.Configuration;
import io.weir.runtime.checkpoint.CompletedCheckpoint;
import io.weir.runtime.checkpoint.CompletedCheckpointStore;
import io.weir.runtime.checkpoint.CompletedStop;
import io.weir.runtime.storage.CompletedCheckpointLocation;
import io.weir.runtime.storage.DamagedStateException;
import java.io.IOException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.function.LongFunction;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.api.transaction.CuratorOp;
import org.apache.zookeeper.KeeperException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A job's retained checkpoints on ZooKeeper, for the leader of one epoch: in ZooKeeper only a
 * pointer per checkpoint ({@code /jobs/<job-id>/checkpoints/<id>}: its id and the URI of its {@code
 * chk-<n>} directory); the metadata and state stay in the job's checkpoint storage, where the
 * coordinator wrote them before calling {@link #add}.
 *
 * <ul>
 *   <li>Fenced: every change is one transaction conditional on the leader's epoch (see {@link
 *       FencedWrites}). A deposed leader's {@link #add} or {@link #removeAll} throws {@link
 *       FencedException} and changes nothing; it returns no checkpoint to delete.
 *   <li>Atomic: adding a checkpoint and removing the pointers it subsumes is one transaction, so
 *       ZooKeeper always holds exactly the retained set, and a checkpoint is returned for deletion
 *       only once its pointer is gone.
 *   <li>Ambiguous writes: a write whose answer was lost with the connection is read back once the
 *       connection returns. If the connection does not return in time, {@link #add} throws {@link
 *       UnknownWriteOutcomeException} and returns nothing to delete, the new checkpoint's files
 *       included; the next {@link #add} reads the outcome back first, and a leader that recovers
 *       the store finds the pointer if the write was applied.
 * </ul>
 *
 * <p>{@link #all()} answers from memory. Not thread-safe beyond its own lock: the coordinator calls
 * it under its lock, as {@link CompletedCheckpointStore} says. Blocks while ZooKeeper answers.
 */
public final class ZooKeeperCompletedCheckpointStore implements CompletedCheckpointStore {

  private static final Logger LOG =
      LoggerFactory.getLogger(ZooKeeperCompletedCheckpointStore.class);

  /**
   * What a checkpoint's znode holds.
   *
   * @param checkpointId the checkpoint
   * @param externalPointer the URI of its {@code chk-<n>} directory in the job's storage
   * @param timestamp when it was triggered
   * @param epoch the epoch of the leader that recorded it
   * @param writeId tells this write from any other, for reading back an ambiguous one
   */
  public record Pointer(
      long checkpointId, String externalPointer, long timestamp, long epoch, String writeId) {}

  /**
   * What the znode of a completed stop-with-savepoint holds.
   *
   * @param savepointId the savepoint
   * @param path its directory
   * @param epoch the epoch of the leader that recorded it
   * @param writeId tells this write from any other, for reading back an ambiguous one
   */
  public record StopPointer(long savepointId, String path, long epoch, String writeId) {}

  /** A write whose outcome is unknown yet: what it added and what it meant to subsume. */
  private record Unresolved(
      CompletedCheckpoint checkpoint, String writeId, List<CompletedCheckpoint> subsumed) {}

  private final CuratorFramework client;
  private final FencedWrites writes;
  private final String jobId;
  private final LeaderEpoch epoch;
  private final int numRetained;
  private final LongFunction<String> pointerOf;
  private final Deque<CompletedCheckpoint> retained = new ArrayDeque<>();
  private final Map<Long, Unresolved> unresolved = new LinkedHashMap<>();
  private final List<String> recoveryProblems = new ArrayList<>();
  private volatile CompletedStop completedStop;

  private ZooKeeperCompletedCheckpointStore(
      CuratorFramework client,
      FencedWrites writes,
      String jobId,
      LeaderEpoch epoch,
      int numRetained,
      LongFunction<String> pointerOf) {
    if (numRetained < 1) {
      throw new IllegalArgumentException("At least one checkpoint is retained, not " + numRetained);
    }
    this.client = client;
    this.writes = writes;
    this.jobId = jobId;
    this.epoch = epoch;
    this.numRetained = numRetained;
    this.pointerOf = pointerOf;
  }

  /**
   * The store of {@code jobId} as ZooKeeper holds it: each pointer's checkpoint is read from its
   * metadata in storage, newest first. A checkpoint whose metadata is missing or damaged is left
   * out and told in {@link #recoveryProblems()}, and its pointer stays: a new leader deletes
   * nothing it cannot read.
   *
   * @throws CheckpointsUnreadableException when a read failed for a reason that may pass: leaving
   *     that checkpoint out would recover the job from an older one
   */
  static ZooKeeperCompletedCheckpointStore recover(
      CuratorFramework client,
      FencedWrites writes,
      String jobId,
      LeaderEpoch epoch,
      int numRetained,
      LongFunction<String> pointerOf,
      Configuration jobConf) {
    ZooKeeperCompletedCheckpointStore store =
        new ZooKeeperCompletedCheckpointStore(client, writes, jobId, epoch, numRetained, pointerOf);
    String dir = ZNodes.checkpoints(jobId);
    try {
      try {
        client.create().creatingParentsIfNeeded().forPath(dir);
      } catch (KeeperException.NodeExistsException e) {
        // recovering: it holds the pointers
      }
      List<String> names = new ArrayList<>(client.getChildren().forPath(dir));
      names.sort(java.util.Comparator.reverseOrder());
      for (String name : names) {
        String path = dir + "/" + name;
        Pointer pointer;
        try {
          pointer = ZNodeJson.read(client.getData().forPath(path), Pointer.class, path);
        } catch (KeeperException.NoNodeException e) {
          continue; // removed meanwhile
        } catch (HighAvailabilityException e) {
          store.recoveryProblems.add(e.getMessage());
          continue;
        }
        try {
          CompletedCheckpoint checkpoint =
              CompletedCheckpointLocation.read(pointer.externalPointer(), jobConf).checkpoint();
          if (checkpoint.checkpointId() != pointer.checkpointId()) {
            store.recoveryProblems.add(
                path
                    + " points to "
                    + pointer.externalPointer()
                    + ", which holds checkpoint "
                    + checkpoint.checkpointId());
            continue;
          }
          store.retained.addLast(checkpoint);
        } catch (IOException | RuntimeException e) {
          String checkpoint =
              "Checkpoint "
                  + pointer.checkpointId()
                  + " of job "
                  + jobId
                  + " at "
                  + pointer.externalPointer();
          if (e instanceof IOException failed && !DamagedStateException.isDamage(failed)) {
            throw new CheckpointsUnreadableException(
                checkpoint
                    + " cannot be read now ("
                    + e.getMessage()
                    + "). No checkpoint is skipped for it: the job is recovered once it can be"
                    + " read",
                e);
          }
          store.recoveryProblems.add(checkpoint + " cannot be read: " + e.getMessage());
        }
      }
    } catch (CheckpointsUnreadableException e) {
      throw e;
    } catch (Exception e) {
      throw new HighAvailabilityException(
          "Cannot recover the completed checkpoints of job " + jobId + " from " + dir + ": " + e,
          e);
    }
    store.completedStop = readCompletedStop(client, jobId);
    store.recoveryProblems.forEach(p -> LOG.warn("Recovering job {}: {}", jobId, p));
    return store;
  }

  /** The job's completed stop recorded in ZooKeeper, or null. */
  private static CompletedStop readCompletedStop(CuratorFramework client, String jobId) {
    String path = ZNodes.completedStop(jobId);
    try {
      StopPointer stop = ZNodeJson.read(client.getData().forPath(path), StopPointer.class, path);
      return new CompletedStop(stop.savepointId(), stop.path());
    } catch (KeeperException.NoNodeException e) {
      return null;
    } catch (HighAvailabilityException e) {
      throw e;
    } catch (Exception e) {
      throw new HighAvailabilityException(
          "Cannot read whether job " + jobId + " was stopped, from " + path + ": " + e, e);
    }
  }

  /** What recovery could not read, one line each; the pointers are still in ZooKeeper. */
  public synchronized List<String> recoveryProblems() {
    return List.copyOf(recoveryProblems);
  }

  /** The epoch this store writes with. */
  public LeaderEpoch epoch() {
    return epoch;
  }

  /**
   * Records {@code checkpoint}, whose metadata is committed to storage, and removes the pointers it
   * subsumes, in one transaction conditional on this leader's epoch.
   *
   * @return the subsumed checkpoints, oldest first, whose pointers are gone: their files may be
   *     deleted (with those of an earlier write that turned out to be applied)
   * @throws FencedException if a newer leader took over: nothing changed, delete nothing
   * @throws UnknownWriteOutcomeException if the connection was lost and did not return: delete
   *     nothing, not even this checkpoint's files
   */
  @Override
  public synchronized List<CompletedCheckpoint> add(CompletedCheckpoint checkpoint) {
    List<CompletedCheckpoint> discardable = resolveUnknownWrites();
    long id = checkpoint.checkpointId();
    List<CompletedCheckpoint> subsumed = new ArrayList<>();
    List<CompletedCheckpoint> newestFirst = new ArrayList<>(retained);
    for (int i = newestFirst.size() - 1; i >= numRetained - 1; i--) {
      subsumed.add(newestFirst.get(i)); // oldest first
    }
    String writeId = UUID.randomUUID().toString();
    Pointer pointer =
        new Pointer(id, pointerOf.apply(id), checkpoint.timestamp(), epoch.value(), writeId);
    String path = ZNodes.checkpoint(jobId, id);
    List<CuratorOp> ops = new ArrayList<>();
    try {
      ops.add(client.transactionOp().create().forPath(path, ZNodeJson.write(pointer)));
      for (CompletedCheckpoint old : subsumed) {
        ops.add(
            client.transactionOp().delete().forPath(ZNodes.checkpoint(jobId, old.checkpointId())));
      }
    } catch (Exception e) {
      throw new IllegalStateException("Cannot build the transaction of checkpoint " + id, e);
    }
    try {
      writes.commit(epoch, ops, () -> isOurs(path, writeId), describe(id));
    } catch (UnknownWriteOutcomeException e) {
      unresolved.put(id, new Unresolved(checkpoint, writeId, subsumed));
      throw e;
    }
    applied(checkpoint, subsumed);
    discardable.addAll(subsumed);
    return discardable;
  }

  @Override
  public synchronized List<CompletedCheckpoint> all() {
    return List.copyOf(retained);
  }

  /**
   * Removes every pointer in one transaction conditional on the epoch.
   *
   * @return the checkpoints removed, oldest first: their files may be deleted
   * @throws FencedException if a newer leader took over: nothing changed, delete nothing
   * @throws UnknownWriteOutcomeException if the connection was lost and did not return: delete
   *     nothing
   */
  @Override
  public synchronized List<CompletedCheckpoint> removeAll() {
    List<CompletedCheckpoint> removed = resolveUnknownWrites();
    List<CompletedCheckpoint> oldestFirst = new ArrayList<>(retained);
    java.util.Collections.reverse(oldestFirst);
    if (oldestFirst.isEmpty()) {
      return removed;
    }
    List<String> paths = new ArrayList<>();
    List<CuratorOp> ops = new ArrayList<>();
    try {
      for (CompletedCheckpoint c : oldestFirst) {
        String path = ZNodes.checkpoint(jobId, c.checkpointId());
        paths.add(path);
        ops.add(client.transactionOp().delete().forPath(path));
      }
    } catch (Exception e) {
      throw new IllegalStateException("Cannot build the removal of job " + jobId, e);
    }
    writes.commit(
        epoch,
        ops,
        () -> {
          for (String path : paths) {
            if (client.checkExists().forPath(path) != null) {
              return false;
            }
          }
          return true;
        },
        "Removing the retained checkpoints of job " + jobId);
    retained.clear();
    removed.addAll(oldestFirst);
    return removed;
  }

  /**
   * Records the completed stop in one write conditional on this leader's epoch, before its tasks
   * are told.
   *
   * @throws FencedException if a newer leader took over: nothing recorded
   * @throws UnknownWriteOutcomeException if the connection was lost and did not return: it may be
   *     recorded, and {@link #completedStop()} says it is
   */
  @Override
  public void stopCompleted(CompletedStop stop) {
    String writeId = UUID.randomUUID().toString();
    String path = ZNodes.completedStop(jobId);
    StopPointer pointer = new StopPointer(stop.savepointId(), stop.path(), epoch.value(), writeId);
    CuratorOp op;
    try {
      op = client.transactionOp().create().forPath(path, ZNodeJson.write(pointer));
    } catch (Exception e) {
      throw new IllegalStateException("Cannot build the record of job " + jobId + "'s stop", e);
    }
    try {
      writes.commit(
          epoch,
          List.of(op),
          () -> {
            try {
              byte[] data = client.getData().forPath(path);
              return writeId.equals(ZNodeJson.read(data, StopPointer.class, path).writeId());
            } catch (KeeperException.NoNodeException e) {
              return false;
            }
          },
          "Recording the stop of job " + jobId + " with savepoint " + stop.savepointId());
    } catch (UnknownWriteOutcomeException e) {
      completedStop = stop; // it may be recorded: as good as recorded
      throw e;
    }
    completedStop = stop;
  }

  @Override
  public CompletedStop completedStop() {
    return completedStop;
  }

  /**
   * Reads back the writes whose outcome was unknown, oldest first: an applied one joins the
   * retained checkpoints and what it subsumed may go; one not applied is forgotten, its files left
   * for the storage's orphan clean-up. Returns what may be deleted now.
   */
  private List<CompletedCheckpoint> resolveUnknownWrites() {
    List<CompletedCheckpoint> discardable = new ArrayList<>();
    for (var it = unresolved.values().iterator(); it.hasNext(); ) {
      Unresolved u = it.next();
      String path = ZNodes.checkpoint(jobId, u.checkpoint().checkpointId());
      boolean applied;
      try {
        applied = isOurs(path, u.writeId());
      } catch (Exception e) {
        throw new UnknownWriteOutcomeException(
            describe(u.checkpoint().checkpointId())
                + " still has an unknown outcome (ZooKeeper cannot be read: "
                + e
                + "): delete nothing",
            e);
      }
      it.remove();
      if (applied) {
        LOG.info("{} turned out to be applied", describe(u.checkpoint().checkpointId()));
        applied(u.checkpoint(), u.subsumed());
        discardable.addAll(u.subsumed());
      } else {
        LOG.warn(
            "{} turned out not to be applied: it is not retained, and its files are left to the"
                + " clean-up of orphaned state",
            describe(u.checkpoint().checkpointId()));
      }
    }
    return discardable;
  }

  private void applied(CompletedCheckpoint checkpoint, List<CompletedCheckpoint> subsumed) {
    retained.removeIf(c -> subsumed.stream().anyMatch(s -> s.checkpointId() == c.checkpointId()));
    // newest first, wherever an earlier unknown write lands among them
    List<CompletedCheckpoint> all = new ArrayList<>(retained);
    all.add(checkpoint);
    all.sort((a, b) -> Long.compare(b.checkpointId(), a.checkpointId()));
    retained.clear();
    retained.addAll(all);
  }

  private boolean isOurs(String path, String writeId) throws Exception {
    try {
      byte[] data = client.getData().forPath(path);
      return writeId.equals(ZNodeJson.read(data, Pointer.class, path).writeId());
    } catch (KeeperException.NoNodeException e) {
      return false;
    }
  }

  private String describe(long checkpointId) {
    return "Recording checkpoint " + checkpointId + " of job " + jobId;
  }
}

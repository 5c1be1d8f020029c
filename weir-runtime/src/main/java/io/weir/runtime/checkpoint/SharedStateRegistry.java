package io.weir.runtime.checkpoint;

import io.weir.runtime.storage.CheckpointStorageCoordinatorView;
import io.weir.runtime.storage.StreamStateHandle;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Counts which retained checkpoints use each shared file (the SST files of incremental
 * checkpoints), and deletes a file once no retained checkpoint refers to it.
 *
 * <p>A file is known by its registry key: the database it came from and its local name, which
 * RocksDB never reuses for different contents. A task that reuses a file from an earlier checkpoint
 * only names the key ({@link IncrementalKeyedStateHandle.SharedFile#reused}); the registry fills in
 * the handle it registered. A task that uploads a file the registry already knows (it had not yet
 * heard that the earlier checkpoint completed) made a duplicate: the duplicate is deleted and the
 * registered handle used instead. A full checkpoint uploads every file anew under a new database id
 * (its lineage), so its files are entries of their own, apart from the earlier copies. Each entry
 * remembers the newest checkpoint that used it; when the oldest retained checkpoint is newer than
 * that, no retained checkpoint can use it any more — a checkpoint between the two would have had
 * the file as well, since an SST that compaction removed never comes back.
 *
 * <p>Coordinator only (its lock).
 */
public final class SharedStateRegistry {

  private static final Logger LOG = LoggerFactory.getLogger(SharedStateRegistry.class);

  /**
   * @param registeredBy the checkpoint that registered the file first
   * @param lastUsed the newest checkpoint that uses it
   */
  private record Entry(StreamStateHandle handle, long registeredBy, long lastUsed) {}

  private final CheckpointStorageCoordinatorView storage;
  private final Map<String, Entry> entries = new HashMap<>();

  public SharedStateRegistry(CheckpointStorageCoordinatorView storage) {
    this.storage = storage;
  }

  /**
   * Registers every shared file of {@code checkpoint} as used by it and returns the checkpoint with
   * every shared file pointing at its registered handle.
   *
   * @throws IllegalStateException if the checkpoint reuses a file the registry does not know
   */
  public CompletedCheckpoint register(CompletedCheckpoint checkpoint) {
    List<OperatorState> operators = new ArrayList<>();
    for (OperatorState op : checkpoint.operators()) {
      List<OperatorSubtaskState> subtasks = new ArrayList<>();
      for (OperatorSubtaskState st : op.subtasks()) {
        if (st.keyed() instanceof IncrementalKeyedStateHandle handle) {
          st = st.withKeyed(register(handle, checkpoint.checkpointId(), op.operatorName()));
        }
        subtasks.add(st);
      }
      operators.add(
          new OperatorState(
              op.operatorId(), op.operatorName(), op.parallelism(), op.maxParallelism(), subtasks));
    }
    return new CompletedCheckpoint(
        checkpoint.jobId(),
        checkpoint.checkpointId(),
        checkpoint.timestamp(),
        checkpoint.savepoint(),
        operators);
  }

  private IncrementalKeyedStateHandle register(
      IncrementalKeyedStateHandle handle, long checkpointId, String operator) {
    List<IncrementalKeyedStateHandle.SharedFile> resolved = new ArrayList<>();
    for (IncrementalKeyedStateHandle.SharedFile file : handle.sharedFiles()) {
      String key = handle.registryKey(file);
      Entry existing = entries.get(key);
      StreamStateHandle use;
      if (existing != null) {
        use = existing.handle();
        if (!file.reused() && !file.handle().equals(use)) {
          discard(file.handle()); // a duplicate upload of a file we already have
        }
      } else if (file.reused()) {
        throw new IllegalStateException(
            "Checkpoint "
                + checkpointId
                + " of operator '"
                + operator
                + "' refers to shared file "
                + key
                + ", which no retained checkpoint holds any more");
      } else {
        use = file.handle();
      }
      entries.put(
          key,
          existing == null
              ? new Entry(use, checkpointId, checkpointId)
              : new Entry(
                  use, existing.registeredBy(), Math.max(existing.lastUsed(), checkpointId)));
      resolved.add(new IncrementalKeyedStateHandle.SharedFile(file.localName(), use, false));
    }
    return handle.withSharedFiles(resolved);
  }

  /** Deletes the files that no checkpoint from {@code oldestRetained} on uses. */
  public void release(long oldestRetained) {
    Iterator<Entry> it = entries.values().iterator();
    while (it.hasNext()) {
      Entry e = it.next();
      if (e.lastUsed() < oldestRetained) {
        it.remove();
        discard(e.handle());
      }
    }
  }

  /**
   * Forgets the files checkpoint {@code checkpointId} registered first and no newer checkpoint
   * uses: it was registered but did not complete after all (its metadata could not be written, or
   * it was subsumed or its attempt stopped meanwhile). Deletes nothing; {@link
   * #discardUnregistered} deletes its uploads then. Otherwise the entries would outlive it, and a
   * later upload under the same key — a task restored from an older checkpoint writes its files
   * again, with other contents under the same names — would be taken for a duplicate of a file of a
   * checkpoint that never was.
   */
  public void unregister(long checkpointId) {
    entries
        .values()
        .removeIf(e -> e.registeredBy() == checkpointId && e.lastUsed() == checkpointId);
  }

  /**
   * Deletes the files that {@code states} (from a checkpoint that will not complete) uploaded and
   * nobody registered.
   */
  public void discardUnregistered(Map<String, OperatorSubtaskState> states) {
    Set<StreamStateHandle> registered = new HashSet<>();
    entries.values().forEach(e -> registered.add(e.handle()));
    for (OperatorSubtaskState st : states.values()) {
      if (st.keyed() instanceof IncrementalKeyedStateHandle handle) {
        for (IncrementalKeyedStateHandle.SharedFile file : handle.sharedFiles()) {
          if (!file.reused() && !registered.contains(file.handle())) {
            discard(file.handle());
          }
        }
      }
    }
  }

  /** The relative paths of the registered files. */
  public Set<String> referencedPaths() {
    Set<String> paths = new HashSet<>();
    for (Entry e : entries.values()) {
      if (e.handle() instanceof StreamStateHandle.File f) {
        paths.add(f.relativePath());
      }
    }
    return paths;
  }

  /** Number of registered files, for tests. */
  public int size() {
    return entries.size();
  }

  private void discard(StreamStateHandle handle) {
    try {
      storage.discardSharedState(handle);
    } catch (Exception e) {
      LOG.warn("Could not delete shared state {}", handle, e);
    }
  }
}

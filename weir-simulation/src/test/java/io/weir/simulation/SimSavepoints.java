package io.weir.simulation;

import io.weir.runtime.checkpoint.CompletedCheckpoint;
import io.weir.runtime.checkpoint.OperatorState;
import io.weir.runtime.checkpoint.OperatorSubtaskState;
import io.weir.runtime.storage.FileSystemCheckpointStorage;
import io.weir.runtime.storage.StreamStateHandle;
import java.net.URI;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The savepoints of one simulated run, as the user who asked for them sees them: where they go
 * ({@code <scheme>:///savepoints}, beside the job's checkpoint directory, not in it), which
 * completed and what files each holds, and how many were asked for, completed, failed or refused.
 * The coordinator's own savepoint path does the work ({@code CheckpointCoordinator.
 * triggerSavepoint}); this only remembers what the invariants need: a completed savepoint is the
 * user's, so no delete of Weir may touch its files, and it never stands in for a checkpoint. One
 * thread (the simulation's).
 */
final class SimSavepoints {

  /** A savepoint that completed: its id, where it is, and what it holds. */
  record Completed(long id, String pointer, String directory, Set<String> files) {}

  private final String baseUri;
  // By pointer: a job master that recovered no checkpoint counts ids from the start again, so two
  // savepoints of one job may have the same id.
  private final Map<String, Completed> completed = new LinkedHashMap<>();
  private final Set<Long> triggered = new HashSet<>();
  private final Set<String> heldTxns = new HashSet<>();
  private final Map<String, List<String>> heldBy = new LinkedHashMap<>();
  private int failed;
  private int refused;

  /**
   * @param scheme the run's file system scheme
   */
  SimSavepoints(String scheme) {
    this.baseUri = scheme + ":///savepoints";
  }

  /** The directory the user names for every savepoint ({@code state.savepoints.dir}). */
  String directory() {
    return baseUri;
  }

  /** Savepoint {@code id} was triggered (not refused). */
  void triggered(long id) {
    triggered.add(id);
  }

  /** True when {@code id} was a savepoint's id rather than a checkpoint's. */
  boolean isSavepoint(long id) {
    return triggered.contains(id);
  }

  /**
   * A new job master took the job: the savepoints the deposed one triggered never end, and the new
   * one counts ids on from its newest recovered checkpoint, so an id a savepoint had may come again
   * as a checkpoint's.
   */
  void jobMasterChanged() {
    triggered.clear();
  }

  void refused() {
    refused++;
  }

  void failed() {
    failed++;
  }

  /**
   * Savepoint {@code savepoint}, read back from {@code pointer}, completed: its metadata and every
   * file it refers to are the user's from now on, and the sink's transactions it holds pending
   * ({@code pendingTxns}) are left for a job resumed from it to commit.
   */
  Completed completed(CompletedCheckpoint savepoint, String pointer, List<String> pendingTxns) {
    heldTxns.addAll(pendingTxns);
    heldBy.put(pointer, List.copyOf(pendingTxns));
    String dir = URI.create(pointer).getPath();
    Set<String> files = new HashSet<>();
    files.add(dir + "/" + FileSystemCheckpointStorage.METADATA_FILE);
    String own = "chk-" + savepoint.checkpointId() + "/";
    for (OperatorState op : savepoint.operators()) {
      for (OperatorSubtaskState st : op.subtasks()) {
        for (StreamStateHandle h : st.handles()) {
          if (h instanceof StreamStateHandle.File f) {
            String rel = f.relativePath();
            files.add(dir + "/" + (rel.startsWith(own) ? rel.substring(own.length()) : rel));
          }
        }
      }
    }
    Completed c = new Completed(savepoint.checkpointId(), pointer, dir, Set.copyOf(files));
    completed.put(pointer, c);
    return c;
  }

  /** True when a completed savepoint holds transaction {@code txn} pending. */
  boolean holds(String txn) {
    return heldTxns.contains(txn);
  }

  /** The transactions completed savepoint {@code savepoint} holds pending. */
  List<String> heldBy(Completed savepoint) {
    return heldBy.getOrDefault(savepoint.pointer(), List.of());
  }

  /** The completed savepoints, oldest first. */
  List<Completed> completed() {
    return new ArrayList<>(completed.values());
  }

  int completedCount() {
    return completed.size();
  }

  int failedCount() {
    return failed;
  }

  int refusedCount() {
    return refused;
  }

  /**
   * The completed savepoint whose file or metadata {@code path} is, or that a recursive delete of
   * {@code path} would remove; null when the delete touches none.
   */
  String touchedBy(String path, boolean recursive) {
    for (Completed c : completed.values()) {
      for (String kept : c.files()) {
        if (kept.equals(path) || (recursive && kept.startsWith(path + "/"))) {
          return kept + " of savepoint " + c.id();
        }
      }
    }
    return null;
  }
}

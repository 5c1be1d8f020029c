package io.weir.runtime.checkpoint;

import io.weir.runtime.state.DefaultOperatorStateStore.RestoredList;
import io.weir.runtime.state.HeapSnapshotStrategy.SerializedKeyGroups;
import io.weir.runtime.storage.CheckpointStateReader;
import java.util.List;
import java.util.Map;

/**
 * What one operator subtask starts from after a restore.
 *
 * @param checkpointId the checkpoint restored
 * @param keyed keyed state of the old subtasks in the canonical format, already read and verified
 * @param incremental keyed state of the old subtasks as native RocksDB files, still in storage
 * @param operatorLists this subtask's share of the operator state
 */
public record RestoredOperatorState(
    long checkpointId,
    List<SerializedKeyGroups> keyed,
    List<IncrementalRestore> incremental,
    Map<String, RestoredList> operatorLists) {

  public RestoredOperatorState {
    keyed = List.copyOf(keyed);
    incremental = List.copyOf(incremental);
  }

  /**
   * Incremental keyed state of one old subtask.
   *
   * @param handle its files
   * @param storage where to read them
   * @param claimed true when the checkpoint is this job's own and the newest it retains, so the
   *     database goes on under its id and new checkpoints refer to the same shared files instead of
   *     uploading them again (see {@link TaskRestore#claimed})
   */
  public record IncrementalRestore(
      IncrementalKeyedStateHandle handle, CheckpointStateReader storage, boolean claimed) {}
}

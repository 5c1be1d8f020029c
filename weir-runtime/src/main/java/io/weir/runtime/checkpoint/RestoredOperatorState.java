package io.weir.runtime.checkpoint;

import io.weir.runtime.state.DefaultOperatorStateStore.RestoredList;
import io.weir.runtime.state.HeapSnapshotStrategy.SerializedKeyGroups;
import java.util.List;
import java.util.Map;

/**
 * What one operator subtask starts from after a restore.
 *
 * @param checkpointId the checkpoint restored
 * @param keyed keyed state of the old subtasks whose key groups may overlap this one's
 * @param operatorLists this subtask's share of the operator state
 */
public record RestoredOperatorState(
    long checkpointId, List<SerializedKeyGroups> keyed, Map<String, RestoredList> operatorLists) {}

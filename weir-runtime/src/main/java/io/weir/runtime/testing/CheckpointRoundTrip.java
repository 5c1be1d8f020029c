package io.weir.runtime.testing;

import io.weir.runtime.checkpoint.OperatorSnapshot;
import io.weir.runtime.checkpoint.OperatorState;
import io.weir.runtime.checkpoint.OperatorSubtaskState;
import io.weir.runtime.checkpoint.RestoredOperatorState;
import io.weir.runtime.checkpoint.StateAssignment;
import io.weir.runtime.checkpoint.SubtaskStateCodec;
import io.weir.runtime.checkpoint.TaskRestore;
import io.weir.runtime.storage.CheckpointStorage;
import io.weir.runtime.storage.JobManagerCheckpointStorage;
import java.io.IOException;
import java.util.List;
import java.util.Map;

/**
 * Takes an operator's snapshot through the same path as a real checkpoint: the asynchronous part
 * serializes the keyed state and writes both parts to checkpoint storage ({@link
 * SubtaskStateCodec#persist}), the state assignment hands out the subtask's share as handles, and
 * the restore reads and verifies them ({@link TaskRestore#read()}). Nothing but bytes crosses from
 * the old instance to the new.
 */
final class CheckpointRoundTrip {

  private final CheckpointStorage storage = new JobManagerCheckpointStorage();

  /**
   * The state a fresh instance starts from after {@code snapshot} of checkpoint {@code
   * checkpointId}; this runs the snapshot's asynchronous part, so call it once per snapshot.
   */
  RestoredOperatorState persistAndLoad(long checkpointId, OperatorSnapshot snapshot, int maxP)
      throws IOException {
    OperatorSubtaskState written = SubtaskStateCodec.persist(checkpointId, snapshot, storage);
    // The harness plays a single subtask and restores it at unchanged parallelism, so the
    // operator's state is that subtask's alone: with parallelism 1 the redistribution hands every
    // operator list back to it (keyed state carries its own key-group range).
    OperatorState operatorState =
        new OperatorState(snapshot.operatorId(), snapshot.description(), 1, maxP, List.of(written));
    TaskRestore restore =
        new TaskRestore(
            checkpointId,
            storage,
            true,
            Map.of(
                snapshot.operatorId(), StateAssignment.assignOperator(operatorState, 1, maxP, 0)),
            List.of(),
            List.of(),
            TaskRestore.AssignedSplits.NONE);
    return restore.read().operators().get(snapshot.operatorId());
  }
}

package io.weir.runtime.checkpoint;

import io.weir.api.typeutils.DataInputDeserializer;
import io.weir.api.typeutils.DataOutputSerializer;
import io.weir.runtime.state.DefaultOperatorStateStore;
import io.weir.runtime.state.DefaultOperatorStateStore.RestoredList;
import io.weir.runtime.state.HeapSnapshotStrategy.SerializedKeyGroups;
import io.weir.runtime.storage.CheckpointStorage;
import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Moves one operator subtask's state between its in-memory snapshot and the checkpoint storage:
 * {@link #persist} (asynchronous part of a snapshot) and {@link #load} (restore).
 */
public final class SubtaskStateCodec {

  private SubtaskStateCodec() {}

  /** Serializes the keyed state and writes both parts to storage. Snapshot thread. */
  public static OperatorSubtaskState persist(
      long checkpointId, OperatorSnapshot snapshot, CheckpointStorage storage) throws IOException {
    return persist(checkpointId, snapshot, storage, false);
  }

  /**
   * As above; {@code endOfInput} records that the subtask had ended its input when it took the
   * snapshot (the final checkpoint is the first in which every subtask had).
   */
  public static OperatorSubtaskState persist(
      long checkpointId, OperatorSnapshot snapshot, CheckpointStorage storage, boolean endOfInput)
      throws IOException {
    KeyedStateHandle keyed =
        snapshot.keyed() == null
            ? null
            : snapshot.keyed().persist(checkpointId, storage, "'" + snapshot.description() + "'");
    OperatorStateHandle operator = null;
    if (!snapshot.operatorLists().isEmpty()) {
      DataOutputSerializer out = new DataOutputSerializer(256);
      Map<String, OperatorStateHandle.StateMetaInfo> meta = new LinkedHashMap<>();
      for (Map.Entry<String, RestoredList> e : snapshot.operatorLists().entrySet()) {
        List<byte[]> elements = e.getValue().elements();
        long[] offsets = new long[elements.size()];
        for (int i = 0; i < elements.size(); i++) {
          offsets[i] = out.length();
          out.writeInt(elements.get(i).length);
          out.write(elements.get(i));
        }
        meta.put(e.getKey(), new OperatorStateHandle.StateMetaInfo(e.getValue().mode(), offsets));
      }
      operator =
          new OperatorStateHandle(
              meta,
              storage.writeState(
                  checkpointId,
                  out.getCopyOfBuffer(),
                  "operator state of '" + snapshot.description() + "'"));
    }
    return new OperatorSubtaskState(keyed, operator, endOfInput);
  }

  /**
   * The state of one operator as read back from storage, verified: per old subtask, its key groups
   * and its operator lists.
   *
   * @param keyed every old subtask's keyed state
   * @param operatorLists every old subtask's operator lists, by old subtask index
   */
  public record LoadedOperator(
      List<SerializedKeyGroups> keyed,
      List<RestoredOperatorState.IncrementalRestore> incremental,
      List<Map<String, RestoredList>> operatorLists) {

    /** Subtask {@code index} of {@code parallelism}'s share of this operator's state. */
    public RestoredOperatorState forSubtask(long checkpointId, int index, int parallelism) {
      return new RestoredOperatorState(
          checkpointId,
          keyed,
          incremental,
          DefaultOperatorStateStore.redistribute(operatorLists, parallelism).get(index));
    }
  }

  /**
   * Reads and verifies (checksums) every state file of an operator. The files of incremental keyed
   * state are left where they are: the backend downloads (and verifies) them itself.
   *
   * @param claimed true when the checkpoint belongs to this job's storage, so that new checkpoints
   *     may refer to its shared files; false for a checkpoint resumed from elsewhere
   */
  public static LoadedOperator load(OperatorState state, CheckpointStorage storage, boolean claimed)
      throws IOException {
    List<SerializedKeyGroups> keyed = new ArrayList<>();
    List<RestoredOperatorState.IncrementalRestore> incremental = new ArrayList<>();
    List<Map<String, RestoredList>> lists = new ArrayList<>();
    for (OperatorSubtaskState subtask : state.subtasks()) {
      if (subtask.keyed() instanceof KeyGroupsStateHandle h) {
        keyed.add(new SerializedKeyGroups(h.range(), h.offsets(), storage.readState(h.data())));
      } else if (subtask.keyed() instanceof IncrementalKeyedStateHandle h) {
        incremental.add(new RestoredOperatorState.IncrementalRestore(h, storage, claimed));
      }
      Map<String, RestoredList> subtaskLists = new LinkedHashMap<>();
      if (subtask.operator() != null) {
        byte[] data = storage.readState(subtask.operator().data());
        DataInputDeserializer in = new DataInputDeserializer();
        for (Map.Entry<String, OperatorStateHandle.StateMetaInfo> e :
            subtask.operator().states().entrySet()) {
          List<byte[]> elements = new ArrayList<>();
          for (long offset : e.getValue().offsets()) {
            in.setBuffer(data, (int) offset, data.length - (int) offset);
            byte[] element = new byte[in.readInt()];
            in.readFully(element);
            elements.add(element);
          }
          subtaskLists.put(e.getKey(), new RestoredList(e.getValue().mode(), elements));
        }
      }
      lists.add(subtaskLists);
    }
    return new LoadedOperator(keyed, incremental, lists);
  }
}

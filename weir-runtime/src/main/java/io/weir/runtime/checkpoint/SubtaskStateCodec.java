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
    KeyGroupsStateHandle keyed = null;
    if (snapshot.keyed() != null) {
      SerializedKeyGroups groups = snapshot.keyed().write();
      keyed =
          new KeyGroupsStateHandle(
              groups.range(),
              groups.offsets(),
              storage.writeState(
                  checkpointId, groups.data(), "keyed state of '" + snapshot.description() + "'"));
    }
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
      List<SerializedKeyGroups> keyed, List<Map<String, RestoredList>> operatorLists) {

    /** Subtask {@code index} of {@code parallelism}'s share of this operator's state. */
    public RestoredOperatorState forSubtask(long checkpointId, int index, int parallelism) {
      return new RestoredOperatorState(
          checkpointId,
          keyed,
          DefaultOperatorStateStore.redistribute(operatorLists, parallelism).get(index));
    }
  }

  /** Reads and verifies (checksums) every state file of an operator. */
  public static LoadedOperator load(OperatorState state, CheckpointStorage storage)
      throws IOException {
    List<SerializedKeyGroups> keyed = new ArrayList<>();
    List<Map<String, RestoredList>> lists = new ArrayList<>();
    for (OperatorSubtaskState subtask : state.subtasks()) {
      if (subtask.keyed() != null) {
        KeyGroupsStateHandle h = subtask.keyed();
        keyed.add(new SerializedKeyGroups(h.range(), h.offsets(), storage.readState(h.data())));
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
    return new LoadedOperator(keyed, lists);
  }
}

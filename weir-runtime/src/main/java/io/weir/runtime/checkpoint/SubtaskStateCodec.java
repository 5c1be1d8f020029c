package io.weir.runtime.checkpoint;

import io.weir.api.typeutils.DataOutputSerializer;
import io.weir.runtime.state.DefaultOperatorStateStore;
import io.weir.runtime.state.DefaultOperatorStateStore.RestoredList;
import io.weir.runtime.storage.CheckpointStateWriter;
import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Writes one operator subtask's snapshot to the checkpoint storage: the asynchronous part of a
 * snapshot. A restore reads it back through {@link TaskRestore#read()}.
 */
public final class SubtaskStateCodec {

  private SubtaskStateCodec() {}

  /** Serializes the keyed state and writes both parts to storage. Snapshot thread. */
  public static OperatorSubtaskState persist(
      long checkpointId, OperatorSnapshot snapshot, CheckpointStateWriter storage)
      throws IOException {
    return persist(checkpointId, snapshot, storage, false);
  }

  /**
   * As above; {@code endOfInput} records that the subtask had ended its input when it took the
   * snapshot (the final checkpoint is the first in which every subtask had).
   */
  public static OperatorSubtaskState persist(
      long checkpointId,
      OperatorSnapshot snapshot,
      CheckpointStateWriter storage,
      boolean endOfInput)
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
    return new OperatorSubtaskState(keyed, operator, endOfInput, schemaOf(snapshot));
  }

  /** The serializer snapshots of the snapshot's keyed and operator states; null if none. */
  static StateSchema schemaOf(OperatorSnapshot snapshot) {
    StateSchema keyed = snapshot.keyed() == null ? null : snapshot.keyed().schema();
    List<StateSchema.Entry> states = new ArrayList<>();
    if (keyed != null) {
      states.addAll(keyed.states());
    }
    snapshot
        .operatorLists()
        .forEach(
            (name, list) -> {
              if (list.serializerSnapshot() != null) {
                states.add(
                    new StateSchema.Entry(
                        name,
                        list.mode() == DefaultOperatorStateStore.Mode.UNION
                            ? StateSchema.Kind.OPERATOR_UNION
                            : StateSchema.Kind.OPERATOR_LIST,
                        list.serializerSnapshot(),
                        null));
              }
            });
    if (keyed == null && states.isEmpty()) {
      return null;
    }
    return new StateSchema(keyed == null ? null : keyed.keySerializer(), states);
  }
}

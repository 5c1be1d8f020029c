package io.weir.runtime.checkpoint;

import io.weir.api.typeutils.DataOutputSerializer;
import io.weir.runtime.state.DefaultOperatorStateStore;
import io.weir.runtime.state.DefaultOperatorStateStore.RestoredList;
import io.weir.runtime.storage.CheckpointStateWriter;
import io.weir.runtime.storage.StreamStateHandle;
import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Writes one operator subtask's snapshot to the checkpoint storage: the asynchronous part of a
 * snapshot. Operator list states, in-flight data and splits each go into a stream of their own. A
 * restore reads it back through {@link TaskRestore#read()}.
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
        long[] offsets = writeElements(out, e.getValue().elements());
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
    List<InputChannelStateHandle> inputs = new ArrayList<>();
    List<ResultSubpartitionStateHandle> outputs = new ArrayList<>();
    if (snapshot.inFlight() != null && !snapshot.inFlight().isEmpty()) {
      persistInFlight(checkpointId, snapshot, storage, inputs, outputs);
    }
    SourceSplitsHandle splits = null;
    if (snapshot.splits() != null) {
      DataOutputSerializer out = new DataOutputSerializer(256);
      long[] splitOffsets = writeElements(out, snapshot.splits().splits());
      long[] watermarkOffsets = writeElements(out, snapshot.splits().watermarks());
      splits =
          new SourceSplitsHandle(
              storage.writeState(
                  checkpointId,
                  out.getCopyOfBuffer(),
                  "splits of '" + snapshot.description() + "'"),
              splitOffsets,
              watermarkOffsets);
    }
    return new OperatorSubtaskState(
        keyed, operator, inputs, outputs, splits, endOfInput, schemaOf(snapshot));
  }

  /**
   * Writes the in-flight data of every channel into one stream, each entry framed as {@link
   * ChannelStateFormat} says, and one handle per channel into it.
   */
  private static void persistInFlight(
      long checkpointId,
      OperatorSnapshot snapshot,
      CheckpointStateWriter storage,
      List<InputChannelStateHandle> inputs,
      List<ResultSubpartitionStateHandle> outputs)
      throws IOException {
    InFlightData data = snapshot.inFlight();
    DataOutputSerializer out = new DataOutputSerializer(1024);
    Map<Integer, long[]> inputOffsets = new LinkedHashMap<>();
    data.inputs()
        .forEach(
            (channel, entries) ->
                inputOffsets.put(channel, ChannelStateFormat.write(out, entries)));
    Map<ResultSubpartitionInfo, long[]> outputOffsets = new LinkedHashMap<>();
    data.outputs()
        .forEach(
            (channel, entries) ->
                outputOffsets.put(channel, ChannelStateFormat.write(out, entries)));
    StreamStateHandle stream =
        storage.writeState(
            checkpointId,
            out.getCopyOfBuffer(),
            "in-flight data of '" + snapshot.description() + "'");
    inputOffsets.forEach(
        (channel, offsets) -> inputs.add(new InputChannelStateHandle(channel, stream, offsets)));
    outputOffsets.forEach(
        (channel, offsets) ->
            outputs.add(new ResultSubpartitionStateHandle(channel, stream, offsets)));
  }

  /** Writes each element as {@code length:int bytes}; returns where each starts. */
  private static long[] writeElements(DataOutputSerializer out, List<byte[]> elements) {
    long[] offsets = new long[elements.size()];
    for (int i = 0; i < elements.size(); i++) {
      offsets[i] = out.length();
      out.writeInt(elements.get(i).length);
      out.write(elements.get(i));
    }
    return offsets;
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

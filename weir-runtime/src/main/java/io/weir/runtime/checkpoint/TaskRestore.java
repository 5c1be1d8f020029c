package io.weir.runtime.checkpoint;

import io.weir.api.typeutils.DataInputDeserializer;
import io.weir.runtime.metrics.RestoreProgress;
import io.weir.runtime.network.ChannelStateEntry;
import io.weir.runtime.state.DefaultOperatorStateStore;
import io.weir.runtime.state.HeapSnapshotStrategy.SerializedKeyGroups;
import io.weir.runtime.storage.CheckpointStateReader;
import io.weir.runtime.storage.DamagedStateException;
import io.weir.runtime.storage.StorageReference;
import io.weir.runtime.storage.StreamStateHandle;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * What one subtask restores, as the job master assigned it: handles into checkpoint storage, never
 * the state's bytes. The task reads them itself, on its own thread, with {@link #read()}; so state
 * never passes through the job master (which only verified the files' checksums).
 *
 * @param checkpointId the checkpoint restored, or -1 for a fresh start
 * @param storage where the handles are read
 * @param claimed true when the checkpoint is the job's own and the newest it retains: the restored
 *     state backends go on as the databases they were, and new checkpoints refer to its shared
 *     files; false for a checkpoint the job does not own, or an older one it fell back to: the
 *     backends start as new databases and upload their files again
 * @param operators per operator id of the task's chain, its share of the state
 * @param inputChannelState the recorded input of the subtask's gate channels (unaligned only)
 * @param resultSubpartitionState the overtaken output of the subtask's channels (unaligned only)
 * @param splits a source subtask's splits (fresh or restored); none for other tasks
 */
public record TaskRestore(
    long checkpointId,
    CheckpointStateReader storage,
    boolean claimed,
    Map<String, OperatorRestore> operators,
    List<InputChannelStateHandle> inputChannelState,
    List<ResultSubpartitionStateHandle> resultSubpartitionState,
    AssignedSplits splits) {

  public TaskRestore {
    operators = Map.copyOf(operators);
    inputChannelState = List.copyOf(inputChannelState);
    resultSubpartitionState = List.copyOf(resultSubpartitionState);
  }

  /**
   * A fresh start with the given splits ({@link AssignedSplits#NONE} for a task that is no source).
   */
  public static TaskRestore fresh(AssignedSplits splits) {
    return new TaskRestore(-1, null, false, Map.of(), List.of(), List.of(), splits);
  }

  /**
   * A source subtask's splits and split watermarks: where each element is, not its bytes. Each
   * element is a version and a body (see {@link SerializedSplits}).
   *
   * @param splits the splits
   * @param watermarks the split watermarks
   */
  public record AssignedSplits(List<StateElement> splits, List<StateElement> watermarks) {

    public static final AssignedSplits NONE = new AssignedSplits(List.of(), List.of());

    public AssignedSplits {
      splits = List.copyOf(splits);
      watermarks = List.copyOf(watermarks);
    }
  }

  /**
   * One operator's share of a checkpoint.
   *
   * @param keyed canonical keyed state of the old subtasks whose key groups overlap the subtask's
   * @param incremental native RocksDB state of those old subtasks
   * @param lists the subtask's share of every operator list state, by name
   */
  public record OperatorRestore(
      List<KeyGroupsStateHandle> keyed,
      List<IncrementalKeyedStateHandle> incremental,
      Map<String, AssignedList> lists) {

    public OperatorRestore {
      keyed = List.copyOf(keyed);
      incremental = List.copyOf(incremental);
      lists = Map.copyOf(lists);
    }
  }

  /**
   * A list state's elements assigned to one subtask.
   *
   * @param mode how it was redistributed
   * @param elements where each element is
   * @param serializerSnapshot the versioned snapshot of the serializer that wrote the elements, or
   *     null when the checkpoint does not say
   */
  public record AssignedList(
      DefaultOperatorStateStore.Mode mode, List<StateElement> elements, byte[] serializerSnapshot) {
    public AssignedList {
      elements = List.copyOf(elements);
    }

    public AssignedList(DefaultOperatorStateStore.Mode mode, List<StateElement> elements) {
      this(mode, elements, null);
    }
  }

  /**
   * The state read, as the task's operators and channels consume it.
   *
   * @param operators per operator id, what it starts from
   * @param inFlight the in-flight data to replay, per channel
   * @param splits the splits and split watermarks
   */
  public record Read(
      Map<String, RestoredOperatorState> operators,
      InFlightData inFlight,
      SerializedSplits splits) {}

  /**
   * Reads and verifies every handle this subtask restores (each operator-state stream once). Task
   * thread.
   *
   * @throws CorruptCheckpointException naming the checkpoint when its state is missing, does not
   *     match its checksum, or cannot be decoded: no attempt can restore it
   * @throws IOException naming the checkpoint when a read failed otherwise (a timeout, a refused
   *     connection): an ordinary failure, after which the same checkpoint is tried again
   */
  public Read read() throws IOException {
    Map<StreamStateHandle, byte[]> streams = new IdentityHashMap<>();
    try {
      Map<String, RestoredOperatorState> restored = new LinkedHashMap<>();
      for (Map.Entry<String, OperatorRestore> e : operators.entrySet()) {
        OperatorRestore op = e.getValue();
        List<SerializedKeyGroups> keyed = new ArrayList<>();
        for (KeyGroupsStateHandle h : op.keyed()) {
          keyed.add(new SerializedKeyGroups(h.range(), h.offsets(), fetch(h.data())));
        }
        List<RestoredOperatorState.IncrementalRestore> incremental = new ArrayList<>();
        for (IncrementalKeyedStateHandle h : op.incremental()) {
          incremental.add(new RestoredOperatorState.IncrementalRestore(h, storage, claimed));
        }
        Map<String, DefaultOperatorStateStore.RestoredList> lists = new LinkedHashMap<>();
        for (Map.Entry<String, AssignedList> list : op.lists().entrySet()) {
          lists.put(
              list.getKey(),
              new DefaultOperatorStateStore.RestoredList(
                  list.getValue().mode(),
                  readElements(list.getValue().elements(), streams),
                  list.getValue().serializerSnapshot()));
        }
        restored.put(
            e.getKey(), new RestoredOperatorState(checkpointId, keyed, incremental, lists));
      }
      Map<Integer, List<ChannelStateEntry>> inputs = new LinkedHashMap<>();
      for (InputChannelStateHandle h : inputChannelState) {
        inputs.put(h.channel(), readEntries(h, streams));
      }
      Map<ResultSubpartitionInfo, List<ChannelStateEntry>> outputs = new LinkedHashMap<>();
      for (ResultSubpartitionStateHandle h : resultSubpartitionState) {
        outputs.put(h.subpartition(), readEntries(h, streams));
      }
      return new Read(restored, new InFlightData(inputs, outputs), readSplits(streams));
    } catch (ReadFailed e) {
      IOException cause = (IOException) e.getCause();
      throw new IOException(
          "Checkpoint "
              + checkpointId
              + " could not be read (not a damaged file; the restore is tried again): "
              + cause.getMessage(),
          cause);
    } catch (IOException e) {
      // Missing or damaged state, or bytes that pass their checksum but do not decode.
      throw new CorruptCheckpointException(
          checkpointId, "Checkpoint " + checkpointId + " cannot be restored: " + e.getMessage(), e);
    }
  }

  /**
   * A read of checkpoint storage that failed without the state being missing or damaged: kept apart
   * from the decoding's exceptions, which say the checkpoint is corrupt.
   */
  private static final class ReadFailed extends IOException {
    private static final long serialVersionUID = 1L;

    ReadFailed(IOException cause) {
      super(cause.getMessage(), cause);
    }
  }

  /** The bytes behind {@code handle}; a failure other than damage is a {@link ReadFailed}. */
  private byte[] fetch(StreamStateHandle handle) throws IOException {
    try {
      return storage.readState(handle);
    } catch (DamagedStateException e) {
      throw e;
    } catch (IOException e) {
      throw new ReadFailed(e);
    }
  }

  /**
   * How far a restore of this subtask's state has come, counted as it reads: its totals are those
   * of every piece of state it may read, each once. Null for a fresh start.
   */
  public RestoreProgress progress() {
    if (checkpointId < 0) {
      return null;
    }
    Set<StreamStateHandle> pieces = new HashSet<>();
    for (OperatorRestore op : operators.values()) {
      op.keyed().forEach(h -> pieces.add(h.data()));
      for (IncrementalKeyedStateHandle h : op.incremental()) {
        pieces.add(h.metaData());
        h.sharedFiles().forEach(f -> pieces.add(f.handle()));
        h.privateFiles().forEach(f -> pieces.add(f.handle()));
      }
      op.lists().values().forEach(list -> addStored(list.elements(), pieces));
    }
    inputChannelState.forEach(h -> pieces.add(h.data()));
    resultSubpartitionState.forEach(h -> pieces.add(h.data()));
    addStored(splits.splits(), pieces);
    addStored(splits.watermarks(), pieces);
    long bytes = 0;
    long files = 0;
    for (StreamStateHandle piece : pieces) {
      bytes += piece.size();
      files += piece instanceof StreamStateHandle.File ? 1 : 0;
    }
    return new RestoreProgress(checkpointId, bytes, files);
  }

  private static void addStored(List<StateElement> elements, Set<StreamStateHandle> pieces) {
    for (StateElement element : elements) {
      if (element instanceof StateElement.Stored stored) {
        pieces.add(stored.data());
      }
    }
  }

  /** The same restore, counting into {@code progress} what it reads (null: nothing counted). */
  public TaskRestore countingInto(RestoreProgress progress) {
    if (progress == null) {
      return this;
    }
    return new TaskRestore(
        checkpointId,
        new CountingReader(storage, progress),
        claimed,
        operators,
        inputChannelState,
        resultSubpartitionState,
        splits);
  }

  /** Reads through another reader and counts each piece of state once it was read and verified. */
  private record CountingReader(CheckpointStateReader reader, RestoreProgress progress)
      implements CheckpointStateReader {

    @Override
    public byte[] readState(StreamStateHandle handle) throws IOException {
      byte[] bytes = reader.readState(handle);
      counted(handle);
      return bytes;
    }

    @Override
    public void readStateToFile(StreamStateHandle handle, Path target) throws IOException {
      reader.readStateToFile(handle, target);
      counted(handle);
    }

    @Override
    public void verifyState(StreamStateHandle handle) throws IOException {
      reader.verifyState(handle);
    }

    @Override
    public StorageReference reference() {
      return reader.reference();
    }

    private void counted(StreamStateHandle handle) {
      progress.read(handle.size(), handle instanceof StreamStateHandle.File);
    }

    @Override
    public String toString() {
      return reader.toString();
    }
  }

  /** The same restore with other splits. */
  public TaskRestore withSplits(AssignedSplits newSplits) {
    return new TaskRestore(
        checkpointId,
        storage,
        claimed,
        operators,
        inputChannelState,
        resultSubpartitionState,
        newSplits);
  }

  /** The bytes of this subtask's splits and split watermarks. */
  public SerializedSplits readSplits() throws IOException {
    return readSplits(new IdentityHashMap<>());
  }

  private SerializedSplits readSplits(Map<StreamStateHandle, byte[]> streams) throws IOException {
    return SerializedSplits.read(
        readElements(splits.splits(), streams), readElements(splits.watermarks(), streams));
  }

  /** One channel's entries, in order (see {@link ChannelStateFormat}). */
  private List<ChannelStateEntry> readEntries(
      ChannelStateHandle handle, Map<StreamStateHandle, byte[]> streams) throws IOException {
    byte[] data = stream(handle.data(), streams);
    List<ChannelStateEntry> entries = new ArrayList<>(handle.offsets().length);
    DataInputDeserializer in = new DataInputDeserializer();
    for (long offset : handle.offsets()) {
      in.setBuffer(data, (int) offset, data.length - (int) offset);
      entries.add(ChannelStateFormat.read(in));
    }
    return entries;
  }

  /** The bytes of {@code data}, read once per restore. */
  private byte[] stream(StreamStateHandle data, Map<StreamStateHandle, byte[]> streams)
      throws IOException {
    byte[] bytes = streams.get(data);
    if (bytes == null) {
      bytes = fetch(data);
      streams.put(data, bytes);
    }
    return bytes;
  }

  private List<byte[]> readElements(
      List<StateElement> elements, Map<StreamStateHandle, byte[]> streams) throws IOException {
    List<byte[]> out = new ArrayList<>(elements.size());
    DataInputDeserializer in = new DataInputDeserializer();
    for (StateElement element : elements) {
      if (element instanceof StateElement.Inline inline) {
        out.add(inline.bytes());
      } else {
        StateElement.Stored stored = (StateElement.Stored) element;
        byte[] data = stream(stored.data(), streams);
        in.setBuffer(data, (int) stored.offset(), data.length - (int) stored.offset());
        byte[] bytes = new byte[in.readInt()];
        in.readFully(bytes);
        out.add(bytes);
      }
    }
    return out;
  }
}

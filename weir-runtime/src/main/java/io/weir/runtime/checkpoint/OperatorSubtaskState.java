package io.weir.runtime.checkpoint;

import io.weir.runtime.storage.StreamStateHandle;
import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Set;

/**
 * What one operator of one subtask contributed to a checkpoint. The head operator of a task also
 * carries the task's own state: the in-flight data of an unaligned checkpoint and a source's
 * splits.
 *
 * @param keyed its keyed state, or null
 * @param operator its operator list states, or null
 * @param inputChannelState the recorded input of the task's gate channels (none unless unaligned)
 * @param resultSubpartitionState the overtaken output of the task's channels (none unless
 *     unaligned)
 * @param splits a source task's splits, or null
 * @param finished true when the subtask had already finished its input
 * @param schema the serializer snapshots of its states; null when there is no state, or when the
 *     checkpoint was written before Weir recorded them (metadata format 2 and older)
 */
public record OperatorSubtaskState(
    KeyedStateHandle keyed,
    OperatorStateHandle operator,
    List<InputChannelStateHandle> inputChannelState,
    List<ResultSubpartitionStateHandle> resultSubpartitionState,
    SourceSplitsHandle splits,
    boolean finished,
    StateSchema schema) {

  public static final OperatorSubtaskState EMPTY = new OperatorSubtaskState(null, null, false);

  public static final OperatorSubtaskState FINISHED = new OperatorSubtaskState(null, null, true);

  public OperatorSubtaskState {
    inputChannelState = List.copyOf(inputChannelState);
    resultSubpartitionState = List.copyOf(resultSubpartitionState);
  }

  /** An operator's own state, without a task's. */
  public OperatorSubtaskState(
      KeyedStateHandle keyed, OperatorStateHandle operator, boolean finished, StateSchema schema) {
    this(keyed, operator, List.of(), List.of(), null, finished, schema);
  }

  /** An operator's own state without serializer snapshots. */
  public OperatorSubtaskState(
      KeyedStateHandle keyed, OperatorStateHandle operator, boolean finished) {
    this(keyed, operator, finished, null);
  }

  /** The same state with other keyed state. */
  public OperatorSubtaskState withKeyed(KeyedStateHandle newKeyed) {
    return new OperatorSubtaskState(
        newKeyed, operator, inputChannelState, resultSubpartitionState, splits, finished, schema);
  }

  /** True when nothing was checkpointed for this subtask (it may still have finished). */
  public boolean hasNoState() {
    return keyed == null && operator == null && !hasChannelState() && splits == null;
  }

  /** True when it holds in-flight data of an unaligned checkpoint. */
  public boolean hasChannelState() {
    return !inputChannelState.isEmpty() || !resultSubpartitionState.isEmpty();
  }

  /** The in-flight data of every channel: inputs, then outputs. */
  public List<ChannelStateHandle> channelState() {
    List<ChannelStateHandle> all = new ArrayList<>(inputChannelState);
    all.addAll(resultSubpartitionState);
    return all;
  }

  /** Every stream of state this subtask's snapshot refers to, each once. */
  public List<StreamStateHandle> handles() {
    List<StreamStateHandle> handles = new ArrayList<>();
    if (keyed instanceof KeyGroupsStateHandle k) {
      handles.add(k.data());
    } else if (keyed instanceof IncrementalKeyedStateHandle k) {
      handles.add(k.metaData());
      k.sharedFiles().forEach(f -> handles.add(f.handle()));
      k.privateFiles().forEach(f -> handles.add(f.handle()));
    }
    handles.addAll(ownStreams());
    return handles;
  }

  /**
   * The files of the checkpoint storage this snapshot wrote: without the shared files an earlier
   * incremental checkpoint uploaded, and without state inline in the metadata.
   */
  public List<StreamStateHandle.File> filesWritten() {
    List<StreamStateHandle.File> files = new ArrayList<>();
    Set<StreamStateHandle> reused = Collections.newSetFromMap(new IdentityHashMap<>());
    if (keyed instanceof IncrementalKeyedStateHandle k) {
      k.sharedFiles().stream().filter(f -> f.reused()).forEach(f -> reused.add(f.handle()));
    }
    for (StreamStateHandle h : handles()) {
      if (h instanceof StreamStateHandle.File f && !reused.contains(h)) {
        files.add(f);
      }
    }
    return files;
  }

  /** Bytes of state this subtask's snapshot refers to, files shared with earlier ones included. */
  public long stateSize() {
    return (keyed == null ? 0 : keyed.stateSize()) + ownStreamsSize();
  }

  /** Bytes written for this checkpoint: without files that earlier checkpoints uploaded. */
  public long checkpointedSize() {
    return (keyed == null ? 0 : keyed.checkpointedSize()) + ownStreamsSize();
  }

  private long ownStreamsSize() {
    long size = 0;
    for (StreamStateHandle h : ownStreams()) {
      size += h.size();
    }
    return size;
  }

  /**
   * The streams of operator state, in-flight data and splits, each once: channels share a stream,
   * and in checkpoints of format 3 and older they share the operator state's.
   */
  private List<StreamStateHandle> ownStreams() {
    Set<StreamStateHandle> seen = Collections.newSetFromMap(new IdentityHashMap<>());
    List<StreamStateHandle> streams = new ArrayList<>();
    if (operator != null && seen.add(operator.data())) {
      streams.add(operator.data());
    }
    for (ChannelStateHandle c : channelState()) {
      if (seen.add(c.data()) && !streams.contains(c.data())) {
        streams.add(c.data());
      }
    }
    if (splits != null && seen.add(splits.data()) && !streams.contains(splits.data())) {
      streams.add(splits.data());
    }
    return streams;
  }
}

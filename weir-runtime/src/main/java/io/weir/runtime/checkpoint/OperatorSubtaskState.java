package io.weir.runtime.checkpoint;

import io.weir.runtime.storage.StreamStateHandle;
import java.util.ArrayList;
import java.util.List;

/**
 * What one operator of one subtask contributed to a checkpoint.
 *
 * @param keyed its keyed state, or null
 * @param operator its operator state (for sources: their splits), or null
 * @param finished true when the subtask had already finished its input
 * @param schema the serializer snapshots of its states; null when there is no state, or when the
 *     checkpoint was written before Weir recorded them (metadata format 2 and older)
 */
public record OperatorSubtaskState(
    KeyedStateHandle keyed, OperatorStateHandle operator, boolean finished, StateSchema schema) {

  public static final OperatorSubtaskState EMPTY = new OperatorSubtaskState(null, null, false);

  public static final OperatorSubtaskState FINISHED = new OperatorSubtaskState(null, null, true);

  /** A state without serializer snapshots. */
  public OperatorSubtaskState(
      KeyedStateHandle keyed, OperatorStateHandle operator, boolean finished) {
    this(keyed, operator, finished, null);
  }

  /** Every stream of state this subtask's snapshot refers to. */
  public List<StreamStateHandle> handles() {
    List<StreamStateHandle> handles = new ArrayList<>();
    if (keyed instanceof KeyGroupsStateHandle k) {
      handles.add(k.data());
    } else if (keyed instanceof IncrementalKeyedStateHandle k) {
      handles.add(k.metaData());
      k.sharedFiles().forEach(f -> handles.add(f.handle()));
      k.privateFiles().forEach(f -> handles.add(f.handle()));
    }
    if (operator != null) {
      handles.add(operator.data());
    }
    return handles;
  }

  /** Bytes of state this subtask's snapshot refers to, files shared with earlier ones included. */
  public long stateSize() {
    return (keyed == null ? 0 : keyed.stateSize())
        + (operator == null ? 0 : operator.data().size());
  }

  /** Bytes written for this checkpoint: without files that earlier checkpoints uploaded. */
  public long checkpointedSize() {
    return (keyed == null ? 0 : keyed.checkpointedSize())
        + (operator == null ? 0 : operator.data().size());
  }
}

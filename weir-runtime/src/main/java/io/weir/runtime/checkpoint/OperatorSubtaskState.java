package io.weir.runtime.checkpoint;

/**
 * What one operator of one subtask contributed to a checkpoint.
 *
 * @param keyed its keyed state, or null
 * @param operator its operator state (for sources: their splits), or null
 * @param finished true when the subtask had already finished its input
 */
public record OperatorSubtaskState(
    KeyGroupsStateHandle keyed, OperatorStateHandle operator, boolean finished) {

  public static final OperatorSubtaskState EMPTY = new OperatorSubtaskState(null, null, false);

  public static final OperatorSubtaskState FINISHED = new OperatorSubtaskState(null, null, true);
}

package io.weir.runtime.checkpoint;

import io.weir.runtime.state.DefaultOperatorStateStore.RestoredList;
import io.weir.runtime.state.KeyedStateSnapshot;
import java.util.Map;

/**
 * The synchronous part of one operator's snapshot: frozen keyed state (serialized later, off the
 * task thread) and its operator state, already serialized; for the head operator of a task, also
 * the task's own state: its in-flight data and, for a source, its splits.
 *
 * @param operatorId the operator's stable id
 * @param description operator name, for errors
 * @param keyed frozen keyed state, or null
 * @param operatorLists operator state lists by name (may be empty)
 * @param inFlight the task's in-flight data of an unaligned checkpoint, or null (head only)
 * @param splits a source task's splits and split watermarks, or null (head only)
 */
public record OperatorSnapshot(
    String operatorId,
    String description,
    KeyedStateSnapshot keyed,
    Map<String, RestoredList> operatorLists,
    InFlightData inFlight,
    SerializedSplits splits) {

  /** An operator's own state, without a task's. */
  public OperatorSnapshot(
      String operatorId,
      String description,
      KeyedStateSnapshot keyed,
      Map<String, RestoredList> operatorLists) {
    this(operatorId, description, keyed, operatorLists, null, null);
  }

  /** This snapshot with {@code data} added to its in-flight data. */
  public OperatorSnapshot withInFlight(InFlightData data) {
    return new OperatorSnapshot(
        operatorId,
        description,
        keyed,
        operatorLists,
        inFlight == null ? data : inFlight.with(data),
        splits);
  }
}

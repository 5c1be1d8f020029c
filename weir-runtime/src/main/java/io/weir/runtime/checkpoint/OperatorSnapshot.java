package io.weir.runtime.checkpoint;

import io.weir.runtime.state.DefaultOperatorStateStore.RestoredList;
import io.weir.runtime.state.KeyedStateSnapshot;
import java.util.Map;

/**
 * The synchronous part of one operator's snapshot: frozen keyed state (serialized later, off the
 * task thread) and its operator state, already serialized.
 *
 * @param operatorId the operator's stable id
 * @param description operator name, for errors
 * @param keyed frozen keyed state, or null
 * @param operatorLists operator state lists by name (may be empty)
 */
public record OperatorSnapshot(
    String operatorId,
    String description,
    KeyedStateSnapshot keyed,
    Map<String, RestoredList> operatorLists) {}

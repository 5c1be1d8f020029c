package io.weir.runtime.checkpoint;

import io.weir.runtime.state.DefaultOperatorStateStore;
import io.weir.runtime.storage.StreamStateHandle;
import java.util.Map;

/**
 * The operator state of one operator subtask: every named list state as a run of serialized
 * elements in one stream.
 *
 * @param states per state name: its redistribution mode and the offsets of its elements
 * @param data the stream
 */
public record OperatorStateHandle(Map<String, StateMetaInfo> states, StreamStateHandle data) {

  /**
   * One list state inside the stream.
   *
   * @param mode split (dealt out on rescale) or union (everyone gets everything)
   * @param offsets the start of each element
   */
  public record StateMetaInfo(DefaultOperatorStateStore.Mode mode, long[] offsets) {}
}

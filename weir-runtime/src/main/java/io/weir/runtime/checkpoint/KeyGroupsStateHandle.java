package io.weir.runtime.checkpoint;

import io.weir.runtime.state.KeyGroupRange;
import io.weir.runtime.storage.StreamStateHandle;

/**
 * The keyed state of one operator subtask in the canonical key-group format: a stream that holds
 * the state's meta information followed by each key group of the range in order; {@code offsets[i]}
 * is where key group {@code range.start + i} begins. A restore at another parallelism reads only
 * the key groups it owns. Every backend can read it, so it is also the savepoint format.
 *
 * @param range the key groups in the stream
 * @param offsets the start of each key group in the stream
 * @param data the stream
 */
public record KeyGroupsStateHandle(KeyGroupRange range, long[] offsets, StreamStateHandle data)
    implements KeyedStateHandle {

  @Override
  public long stateSize() {
    return data.size();
  }

  @Override
  public long checkpointedSize() {
    return data.size();
  }
}

package io.weir.runtime.checkpoint;

import io.weir.runtime.storage.StreamStateHandle;

/**
 * One element of a list of operator state assigned to a subtask: where its bytes are, not the
 * bytes. The job master assigns elements; the task reads them ({@link TaskRestore#read()}).
 */
public sealed interface StateElement {

  /**
   * An element whose bytes travel with the assignment: a source's fresh splits.
   *
   * @param bytes the element
   */
  record Inline(byte[] bytes) implements StateElement {}

  /**
   * An element inside an operator-state stream of a checkpoint.
   *
   * @param data the stream
   * @param offset where the element's length prefix starts
   */
  record Stored(StreamStateHandle data, long offset) implements StateElement {}
}

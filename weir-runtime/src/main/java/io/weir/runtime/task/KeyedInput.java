package io.weir.runtime.task;

import io.weir.api.functions.KeySelector;
import io.weir.runtime.operators.OneInputOperator;
import io.weir.runtime.state.KeyedStateBackend;

/**
 * The input of an operator on a keyed stream: sets the element's key as the current key of the
 * operator's state backend, then hands the element on. Every operator after a keyBy gets one, so
 * keyed state works the same in a rich map, a process function or a sink.
 */
final class KeyedInput<T, K> implements OneInputOperator<T> {

  private final OneInputOperator<T> operator;
  private final KeySelector<T, K> keySelector;
  private final KeyedStateBackend<K> backend;

  KeyedInput(
      OneInputOperator<T> operator, KeySelector<T, K> keySelector, KeyedStateBackend<K> backend) {
    this.operator = operator;
    this.keySelector = keySelector;
    this.backend = backend;
  }

  @Override
  public void processElement(T value, long timestamp) throws Exception {
    backend.setCurrentKey(keySelector.getKey(value));
    operator.processElement(value, timestamp);
  }
}

package io.weir.runtime.testing;

import io.weir.api.functions.KeySelector;
import io.weir.api.typeutils.TypeSerializer;
import io.weir.runtime.operators.StreamOperator;
import java.util.function.Supplier;

/**
 * What a harness runs: how to make a fresh operator instance, and how the runtime would wire it.
 *
 * @param name the operator's name, for messages
 * @param freshOperator a new operator with its own copy of the user code on every call
 * @param keySerializer serializer of the keys when the operator is keyed; null otherwise
 * @param inputKeySelector for a keyed one-input operator, the key of an element, set as the current
 *     key before the element (as the runtime's keyed input does); null when not keyed or when the
 *     operator sets keys itself (keyed two-input operators)
 * @param outputSerializer copies each emitted record, so later mutation by the operator cannot
 *     change what was recorded; null keeps records as emitted
 * @param input1Serializer copies each element of input 1 before the operator gets it, as the
 *     runtime hands every operator its own copy; null passes the script's object itself
 * @param input2Serializer the same for input 2
 */
record OperatorSpec(
    String name,
    Supplier<? extends StreamOperator<?>> freshOperator,
    TypeSerializer<?> keySerializer,
    KeySelector<?, ?> inputKeySelector,
    TypeSerializer<?> outputSerializer,
    TypeSerializer<?> input1Serializer,
    TypeSerializer<?> input2Serializer) {

  boolean isKeyed() {
    return keySerializer != null;
  }

  /** A spec without key, serializers or input copies. */
  static OperatorSpec of(String name, Supplier<? extends StreamOperator<?>> freshOperator) {
    return new OperatorSpec(name, freshOperator, null, null, null, null, null);
  }

  OperatorSpec withKey(TypeSerializer<?> keys, KeySelector<?, ?> selector) {
    return new OperatorSpec(
        name, freshOperator, keys, selector, outputSerializer, input1Serializer, input2Serializer);
  }

  OperatorSpec withOutputSerializer(TypeSerializer<?> serializer) {
    return new OperatorSpec(
        name,
        freshOperator,
        keySerializer,
        inputKeySelector,
        serializer,
        input1Serializer,
        input2Serializer);
  }

  OperatorSpec withInputSerializers(TypeSerializer<?> input1, TypeSerializer<?> input2) {
    return new OperatorSpec(
        name, freshOperator, keySerializer, inputKeySelector, outputSerializer, input1, input2);
  }
}

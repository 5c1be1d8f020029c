package io.weir.runtime.testing;

import io.weir.api.functions.KeySelector;
import io.weir.api.typeutils.TypeInformation;
import io.weir.runtime.network.RecordWriter;
import java.util.List;
import java.util.Objects;

/**
 * A harness for an operator with one input: the script is a sequence of elements and
 * processing-time steps. Create one with {@link OperatorHarness}.
 *
 * @param <IN> the input type
 * @param <OUT> the output type
 */
public final class OneInputHarness<IN, OUT> extends AbstractHarness<OUT, OneInputHarness<IN, OUT>> {

  OneInputHarness(OperatorSpec spec) {
    super(spec);
  }

  @Override
  OneInputHarness<IN, OUT> self() {
    return this;
  }

  /** Appends an element without a timestamp. */
  public OneInputHarness<IN, OUT> element(IN value) {
    return element(value, RecordWriter.NO_TIMESTAMP);
  }

  /** Appends an element with an event timestamp. */
  public OneInputHarness<IN, OUT> element(IN value, long timestamp) {
    steps.add(new Step.Element(1, Objects.requireNonNull(value, "element"), timestamp));
    return this;
  }

  /** Appends the elements, in order, without timestamps. */
  public OneInputHarness<IN, OUT> input(List<? extends IN> values) {
    for (IN value : values) {
      element(value);
    }
    return this;
  }

  /** Appends the elements, in order, without timestamps. */
  @SafeVarargs
  public final OneInputHarness<IN, OUT> input(IN... values) {
    return input(List.of(values));
  }

  /**
   * Runs the operator on a keyed stream, as after {@code keyBy(keySelector)}: it gets keyed state,
   * and the harness sets each element's key as the current key before the element, as the runtime's
   * keyed input does. For a rich map, filter, flatMap or sink that uses keyed state.
   */
  public <K> OneInputHarness<IN, OUT> keyedBy(
      KeySelector<IN, K> keySelector, TypeInformation<K> keyType) {
    if (spec.isKeyed()) {
      throw new IllegalStateException("Operator '" + spec.name() + "' is already keyed");
    }
    spec =
        spec.withKey(
            Objects.requireNonNull(keyType, "keyType").createSerializer(),
            Objects.requireNonNull(keySelector, "keySelector"));
    return this;
  }

  /**
   * Gives every run its own copy of each element, made with the serializer of {@code type}, as the
   * runtime hands an operator its own copy of every record: then an operator may keep or change its
   * input without affecting the script's other runs. Without it, every run gets the script's
   * objects themselves, which the operator must not change.
   */
  public OneInputHarness<IN, OUT> inputType(TypeInformation<IN> type) {
    spec = spec.withInputSerializers(type.createSerializer(), null);
    return this;
  }

  /**
   * Copies every emitted record with the serializer of {@code type} as it is recorded, so an
   * operator that changes a record after emitting it is caught, as the runtime's chaining would
   * expose it.
   */
  public OneInputHarness<IN, OUT> outputType(TypeInformation<OUT> type) {
    spec = spec.withOutputSerializer(type.createSerializer());
    return this;
  }
}

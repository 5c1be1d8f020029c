package io.weir.runtime.testing;

import io.weir.api.typeutils.TypeInformation;
import io.weir.runtime.network.RecordWriter;
import java.util.Iterator;
import java.util.List;
import java.util.Objects;

/**
 * A harness for an operator with two inputs: the script fixes the interleaving of the two inputs,
 * element by element. Create one with {@link OperatorHarness}.
 *
 * @param <I1> the first input's type
 * @param <I2> the second input's type
 * @param <OUT> the output type
 */
public final class TwoInputHarness<I1, I2, OUT>
    extends AbstractHarness<OUT, TwoInputHarness<I1, I2, OUT>> {

  TwoInputHarness(OperatorSpec spec) {
    super(spec);
  }

  @Override
  TwoInputHarness<I1, I2, OUT> self() {
    return this;
  }

  /** Appends an element on the first input, without a timestamp. */
  public TwoInputHarness<I1, I2, OUT> element1(I1 value) {
    return element1(value, RecordWriter.NO_TIMESTAMP);
  }

  /** Appends an element on the first input, with an event timestamp. */
  public TwoInputHarness<I1, I2, OUT> element1(I1 value, long timestamp) {
    steps.add(new Step.Element(1, Objects.requireNonNull(value, "element"), timestamp));
    return this;
  }

  /** Appends an element on the second input, without a timestamp. */
  public TwoInputHarness<I1, I2, OUT> element2(I2 value) {
    return element2(value, RecordWriter.NO_TIMESTAMP);
  }

  /** Appends an element on the second input, with an event timestamp. */
  public TwoInputHarness<I1, I2, OUT> element2(I2 value, long timestamp) {
    steps.add(new Step.Element(2, Objects.requireNonNull(value, "element"), timestamp));
    return this;
  }

  /** Appends all of {@code values} on the first input. */
  public TwoInputHarness<I1, I2, OUT> input1(List<? extends I1> values) {
    for (I1 value : values) {
      element1(value);
    }
    return this;
  }

  /** Appends all of {@code values} on the second input. */
  public TwoInputHarness<I1, I2, OUT> input2(List<? extends I2> values) {
    for (I2 value : values) {
      element2(value);
    }
    return this;
  }

  /**
   * Appends both inputs interleaved as {@code interleaving} says: one character per element, {@code
   * '1'} takes the next element of {@code first}, {@code '2'} of {@code second}; e.g. {@code
   * "1121"}. Every element must be taken exactly once.
   */
  public TwoInputHarness<I1, I2, OUT> inputs(
      List<? extends I1> first, List<? extends I2> second, String interleaving) {
    long ones = interleaving.chars().filter(c -> c == '1').count();
    long twos = interleaving.chars().filter(c -> c == '2').count();
    if (ones + twos != interleaving.length() || ones != first.size() || twos != second.size()) {
      throw new IllegalArgumentException(
          "Interleaving \""
              + interleaving
              + "\" must consist of one '1' per element of the first input ("
              + first.size()
              + ") and one '2' per element of the second ("
              + second.size()
              + ")");
    }
    Iterator<? extends I1> a = first.iterator();
    Iterator<? extends I2> b = second.iterator();
    for (int i = 0; i < interleaving.length(); i++) {
      if (interleaving.charAt(i) == '1') {
        element1(a.next());
      } else {
        element2(b.next());
      }
    }
    return this;
  }

  /**
   * Gives an operator built with {@link OperatorHarness#forTwoInputOperator} a keyed state backend;
   * the operator sets the current key itself, as keyed two-input operators do.
   */
  public <K> TwoInputHarness<I1, I2, OUT> keyedStateBackend(TypeInformation<K> keyType) {
    if (spec.isKeyed()) {
      throw new IllegalStateException("Operator '" + spec.name() + "' is already keyed");
    }
    spec = spec.withKey(Objects.requireNonNull(keyType, "keyType").createSerializer(), null);
    return this;
  }

  /**
   * Gives every run its own copies of the elements of both inputs, made with these types'
   * serializers (see {@link OneInputHarness#inputType}).
   */
  public TwoInputHarness<I1, I2, OUT> inputTypes(
      TypeInformation<I1> type1, TypeInformation<I2> type2) {
    spec = spec.withInputSerializers(type1.createSerializer(), type2.createSerializer());
    return this;
  }

  /** Copies every emitted record with the serializer of {@code type} as it is recorded. */
  public TwoInputHarness<I1, I2, OUT> outputType(TypeInformation<OUT> type) {
    spec = spec.withOutputSerializer(type.createSerializer());
    return this;
  }
}
